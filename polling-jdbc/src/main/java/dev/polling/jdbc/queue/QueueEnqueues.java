package dev.polling.jdbc.queue;

import dev.polling.jdbc.DataAccessFailure;
import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.internal.Arguments;
import dev.polling.jdbc.internal.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The enqueue path of a {@link WorkQueue} and its SQL: the insert of validated messages (one, or a
 * JDBC batch) in the caller's transaction, NEW when it heads its business key, BLOCKED behind an
 * open message of its key otherwise (the key's row joined and locked, see {@link KeyHeads}).
 */
final class QueueEnqueues {

	private final String table;

	private final DatabaseTime time;

	private final int maxAttempts;

	private final QueueListener listener;

	private final KeyHeads heads;

	QueueEnqueues(String table, DatabaseTime time, int maxAttempts, QueueListener listener, KeyHeads heads) {
		this.table = table;
		this.time = time;
		this.maxAttempts = maxAttempts;
		this.listener = listener;
		this.heads = heads;
	}

	/** See {@link WorkQueue#enqueue(Connection, String, String, String)}; arguments validated by the caller. */
	long enqueue(Connection connection, String queue, @Nullable String businessKey, String payload) {
		try {
			long id = Sql.inConnectionTransaction(connection, (transaction) -> {
				boolean head = businessKey == null || this.heads.join(transaction, queue, businessKey, 1) == 0;
				try (PreparedStatement statement = transaction.prepareStatement(insertSql(),
						Statement.RETURN_GENERATED_KEYS)) {
					bindInsert(statement, queue, businessKey, payload, head);
					statement.executeUpdate();
					try (ResultSet keys = statement.getGeneratedKeys()) {
						keys.next();
						return keys.getLong(1);
					}
				}
			});
			QueueOutcomes.notify(this.listener, () -> this.listener.onEnqueued(queue, 1));
			return id;
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not enqueue a message in " + this.table + " (queue '" + queue + "')", ex);
		}
	}

	/** See {@link WorkQueue#enqueueAll(Connection, String, List)}; messages validated and not empty. */
	int enqueueAll(Connection connection, String queue, List<NewMessage> messages) {
		// the keys' rows are locked in key order, so that concurrent batches cannot deadlock on them
		Map<String, Integer> perKey = new TreeMap<>();
		for (NewMessage message : messages) {
			if (message.businessKey() != null) {
				perKey.merge(message.businessKey(), 1, Integer::sum);
			}
		}
		try {
			Sql.inConnectionTransaction(connection, (transaction) -> {
				Set<String> headless = new HashSet<>();
				for (Map.Entry<String, Integer> key : perKey.entrySet()) {
					if (this.heads.join(transaction, queue, key.getKey(), key.getValue()) == 0) {
						headless.add(key.getKey());
					}
				}
				try (PreparedStatement statement = transaction.prepareStatement(insertSql())) {
					for (NewMessage message : messages) {
						String key = message.businessKey();
						boolean head = key == null || headless.remove(key);
						bindInsert(statement, queue, key, message.payload(), head);
						statement.addBatch();
					}
					statement.executeBatch();
				}
				return null;
			});
		}
		catch (SQLException ex) {
			throw new DataAccessFailure("Could not enqueue " + messages.size() + " messages in " + this.table
					+ " (queue '" + queue + "')", ex);
		}
		QueueOutcomes.notify(this.listener, () -> this.listener.onEnqueued(queue, messages.size()));
		return messages.size();
	}

	private String insertSql() {
		return "INSERT INTO " + this.table + " (queue, business_key, payload, state, attempts, max_attempts, fence, "
				+ "available_at, enqueued_at) VALUES (?, ?, ?, ?, 0, ?, 0, " + this.time.now() + ", "
				+ this.time.now() + ")";
	}

	private void bindInsert(PreparedStatement statement, String queue, @Nullable String businessKey, String payload,
			boolean head) throws SQLException {
		statement.setString(1, queue);
		statement.setString(2, businessKey);
		statement.setString(3, payload);
		statement.setString(4, head ? "NEW" : "BLOCKED");
		statement.setInt(5, this.maxAttempts);
	}

	static void validate(@Nullable String queue, @Nullable String businessKey, @Nullable String payload) {
		Arguments.key("queue", queue, WorkQueue.MAX_QUEUE_LENGTH, "name the queue in at most " + WorkQueue.MAX_QUEUE_LENGTH
				+ " characters, e.g. \"mails\"");
		if (businessKey != null) {
			Arguments.key("businessKey", businessKey, WorkQueue.MAX_KEY_LENGTH,
					"pass null for an unordered message, or a key of at most " + WorkQueue.MAX_KEY_LENGTH
							+ " characters (e.g. a customer id or a hash of a longer key)");
		}
		Arguments.payload("payload", payload, WorkQueue.MAX_PAYLOAD_LENGTH);
	}

}
