package dev.polling.jdbc.delivery;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.internal.Sql;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery of a {@link DeliveryGuard}'s SENDING rows whose lease expired, and its SQL: IN_DOUBT,
 * or FAILED and due at once for idempotent destinations, the fence bumped. Logs under the category
 * of {@link DeliveryGuard}.
 */
final class DeliveryRecovery {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryGuard.class);

	private final DataSource dataSource;

	private final String table;

	private final DatabaseTime time;

	private final DeliveryListener listener;

	DeliveryRecovery(DataSource dataSource, String table, DatabaseTime time, DeliveryListener listener) {
		this.dataSource = dataSource;
		this.table = table;
		this.time = time;
		this.listener = listener;
	}

	/**
	 * See {@link DeliveryGuard#recoverExpired()}.
	 * @param destinations the guard's registered destinations
	 * @return how many were recovered
	 */
	int recoverExpired(Collection<DeliveryDestination> destinations) {
		String now = this.time.now();
		List<String> idempotent = destinations
			.stream()
			.filter(DeliveryDestination::idempotent)
			.map(DeliveryDestination::name)
			.sorted()
			.toList();
		String expired = "state = 'SENDING' AND lease_until < " + now;
		String in = idempotent.isEmpty() ? "" : "destination IN (" + Sql.placeholders(idempotent.size()) + ")";
		int[] counts = Sql.inTransaction(this.dataSource, "recover expired deliveries in " + this.table,
				(connection) -> {
					int resend = 0;
					if (!idempotent.isEmpty()) {
						// not counted as an attempt: the sending instance crashed or froze, the send did not fail
						try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
								+ " SET state = 'FAILED', finished_at = NULL, last_error = CONCAT('lease of ', owner, "
								+ "' expired during the send; sent again with the same key (idempotent destination)'), "
								+ "fence = fence + 1, owner = NULL, lease_until = NULL, available_at = " + now + " WHERE "
								+ expired + " AND " + in)) {
							bind(statement, idempotent);
							resend = statement.executeUpdate();
						}
					}
					int doubt;
					try (PreparedStatement statement = connection.prepareStatement("UPDATE " + this.table
							+ " SET state = 'IN_DOUBT', finished_at = " + now + ", last_error = CONCAT('lease of ', owner, "
							+ "' expired during the send: outcome unknown, not sent again'), fence = fence + 1, "
							+ "owner = NULL, lease_until = NULL WHERE " + expired
							+ (idempotent.isEmpty() ? "" : " AND NOT " + in))) {
						bind(statement, idempotent);
						doubt = statement.executeUpdate();
					}
					return new int[] { resend, doubt };
				});
		int total = counts[0] + counts[1];
		if (total > 0) {
			logger.warn("Recovered {} delivery(ies) of {} whose lease expired during the send: {} IN_DOUBT (not sent "
					+ "again, resolve them), {} to be sent again (idempotent destinations)", total, this.table, counts[1],
					counts[0]);
			DeliveryOutcomes.notify(this.listener, () -> this.listener.onLeasesExpired(total));
			if (counts[1] > 0) {
				DeliveryOutcomes.notify(this.listener, () -> this.listener.onInDoubt("*", counts[1]));
			}
		}
		return total;
	}

	private static void bind(PreparedStatement statement, List<String> values) throws SQLException {
		int index = 1;
		for (String value : values) {
			statement.setString(index++, value);
		}
	}

}
