package dev.polling.jdbc.queue;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.internal.DialectSql;
import dev.polling.jdbc.internal.LeasedRows;
import dev.polling.jdbc.internal.Sql;
import dev.polling.jdbc.internal.UnansweredClaims;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims and leases of a {@link WorkQueue} and their SQL: the claim of ready messages (releasing
 * first what claims whose answer was lost took), the renewal of the leases an instance holds, and the
 * recovery of messages whose lease expired. Logs under the category of {@link WorkQueue}.
 */
final class QueueLeases {

	private static final Logger logger = LoggerFactory.getLogger(WorkQueue.class);

	private static final String COLUMNS = "id, queue, business_key, payload, attempts, max_attempts, fence, enqueued_at";

	private final DataSource dataSource;

	private final Dialect dialect;

	private final String table;

	private final DatabaseTime time;

	private final Duration leaseTime;

	private final QueueListener listener;

	private final LeasedRows rows;

	/**
	 * Claims whose answer was lost (the connection broke after the server committed): their rows were
	 * never handed to a worker and are released by the next claim instead of waiting out their lease.
	 */
	private final UnansweredClaims unanswered;

	QueueLeases(DataSource dataSource, Dialect dialect, String table, DatabaseTime time, String owner,
			Duration leaseTime, QueueListener listener) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
		this.time = time;
		this.leaseTime = leaseTime;
		this.listener = listener;
		this.rows = new LeasedRows(dialect, this.table, "queue", "NEW", "FAILED", "IN_PROGRESS", COLUMNS);
		// no attempt counted: the rows were never handed to a handler
		this.unanswered = new UnansweredClaims(owner, "UPDATE " + this.table + " SET state = CASE WHEN attempts = 0 "
				+ "THEN 'NEW' ELSE 'FAILED' END, fence = fence + 1, owner = NULL, lease_until = NULL, available_at = "
				+ this.time.now() + " WHERE state = 'IN_PROGRESS' AND owner = ?");
	}

	/** See {@link WorkQueue#claim(String, int)}; arguments checked by the caller. */
	List<QueueMessage> claim(String queue, int limit) {
		this.unanswered.release(this.dataSource, (claimOwner, released) -> logger.info("Released {} message(s) of {} "
				+ "taken by a claim whose answer was lost ({}): never handled, claimable again", released, this.table, claimOwner));
		List<QueueMessage> claimed = this.unanswered.claiming((claimOwner) -> this.rows.claim(this.dataSource, queue,
				claimOwner, this.leaseTime.toMillis(), limit, this::map));
		if (!claimed.isEmpty()) {
			if (this.dialect == Dialect.POSTGRESQL) {
				claimed = new ArrayList<>(claimed);
				claimed.sort((a, b) -> Long.compare(a.id(), b.id()));
			}
			int count = claimed.size();
			notify(() -> this.listener.onClaimed(queue, count));
		}
		return claimed;
	}

	private QueueMessage map(ResultSet result) throws SQLException {
		return new QueueMessage(result.getLong("id"), result.getString("queue"), result.getString("business_key"),
				result.getString("payload"), result.getInt("attempts") + 1, result.getInt("max_attempts"),
				result.getLong("fence"), this.time.read(result, result.findColumn("enqueued_at")));
	}

	/** See {@link WorkQueue#renewLeases(Collection)}. */
	List<QueueMessage> renewLeases(Collection<QueueMessage> held) {
		if (held.isEmpty()) {
			return List.of();
		}
		Map<Long, QueueMessage> byId = new LinkedHashMap<>();
		for (QueueMessage message : held) {
			byId.put(message.id(), message);
		}
		Map<Long, Long> claims = new LinkedHashMap<>();
		byId.forEach((id, message) -> claims.put(id, message.fence()));
		int renewed = this.rows.renew(this.dataSource, claims, this.leaseTime.toMillis());
		if (renewed == byId.size()) {
			return List.of();
		}
		Map<Long, Long> fences = this.rows.fences(this.dataSource, byId.keySet());
		List<QueueMessage> lost = new ArrayList<>();
		for (QueueMessage message : byId.values()) {
			Long fence = fences.get(message.id());
			if (fence == null || fence != message.fence()) {
				lost.add(message);
			}
		}
		Map<String, Integer> perQueue = new HashMap<>();
		lost.forEach((message) -> perQueue.merge(message.queue(), 1, Integer::sum));
		perQueue.forEach((queue, count) -> notify(() -> this.listener.onClaimsLost(queue, count)));
		if (!lost.isEmpty()) {
			logger.info("{} claimed message(s) of this instance were taken over after their lease expired", lost.size());
		}
		return lost;
	}

	/** See {@link WorkQueue#expireLeases()}. */
	int expireLeases() {
		String now = this.time.now();
		String set = "UPDATE " + this.table + " SET state = 'FAILED', last_error = CONCAT('lease of ', owner, ' expired'), "
				+ "fence = fence + 1, owner = NULL, lease_until = NULL, available_at = " + now;
		String expired = "state = 'IN_PROGRESS' AND lease_until < " + now;
		// rows another transaction holds (a claim, a completion, another instance's recovery) are skipped,
		// never waited for: they are recovered at the next round if still expired
		int count = Sql.inTransaction(this.dataSource, "recover expired leases in " + this.table, (connection) -> {
			if (this.dialect == Dialect.POSTGRESQL) {
				// ARRAY(...) runs the locking pick once, whatever the statistics (see LeasedRows)
				try (PreparedStatement statement = connection.prepareStatement(set + " WHERE id = ANY(ARRAY(SELECT id FROM "
						+ this.table + " WHERE " + expired + " LIMIT 1000 FOR UPDATE SKIP LOCKED)) AND " + expired)) {
					return statement.executeUpdate();
				}
			}
			List<Long> ids = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement("SELECT id FROM " + this.table + " WHERE "
					+ expired + DialectSql.limit(this.dialect, "1000")
					+ " FOR UPDATE SKIP LOCKED");
					ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					ids.add(result.getLong(1));
				}
			}
			if (ids.isEmpty()) {
				return 0;
			}
			try (PreparedStatement statement = connection.prepareStatement(set + " WHERE id IN ("
					+ Sql.placeholders(ids.size()) + ") AND " + expired)) {
				int index = 1;
				for (Long id : ids) {
					statement.setLong(index++, id);
				}
				return statement.executeUpdate();
			}
		});
		if (count > 0) {
			logger.info("Recovered {} message(s) of {} whose lease expired", count, this.table);
			notify(() -> this.listener.onLeasesExpired(count));
		}
		return count;
	}

	/** The PostgreSQL claim statement (for documentation). */
	String claimSql() {
		return this.rows.claimSql();
	}

	private void notify(Runnable callback) {
		QueueOutcomes.notify(this.listener, callback);
	}

}
