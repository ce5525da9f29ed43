package dev.polling.jdbc.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.DatabaseTime;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.DatabaseTest;
import dev.polling.jdbc.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The inbox's behaviour, written once and run on every database by {@link PostgresInboxTest},
 * {@link MariaDbInboxTest} and {@link H2InboxTest}.
 */
abstract class InboxContractTest extends DatabaseTest {

	private DataSource dataSource;

	private Inbox inbox;

	private String source;

	InboxContractTest(Dialect dialect) {
		super(dialect);
	}

	@Override
	protected void prepare(TestDatabase database) {
		this.dataSource = database.newDataSource();
		Schema.migrate(this.dataSource, database.dialect(), TableNames.defaults());
		database.execute("CREATE TABLE business_row (source VARCHAR(100) NOT NULL, "
				+ "message_key VARCHAR(255) NOT NULL, instance VARCHAR(20) NOT NULL)");
		this.inbox = Inbox.builder(this.dataSource).build();
	}

	@BeforeEach
	void useOneSourcePerTest(TestInfo test) {
		this.source = test.getTestMethod().orElseThrow().getName();
	}

	@Test
	void detectsTheDialectOfTheDatabase() {
		assertThat(this.inbox.dialect()).isEqualTo(database().dialect());
		assertThat(Dialect.detect(this.dataSource)).isEqualTo(database().dialect());
	}

	@Test
	void answersNewForTheFirstReceiptAndDuplicateForEveryLaterOne() {
		assertThat(this.inbox.receive(this.source, "a@example.com")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "a@example.com")).isEqualTo(Receipt.DUPLICATE);
		assertThat(this.inbox.receive(this.source, "a@example.com")).isEqualTo(Receipt.DUPLICATE);
		assertThat(this.inbox.contains(this.source, "a@example.com")).isTrue();
		assertThat(this.inbox.contains(this.source, "b@example.com")).isFalse();
	}

	@Test
	void answersDuplicateForTheSameKeyInOneTransaction() throws SQLException {
		try (Connection connection = transaction()) {
			assertThat(this.inbox.receive(connection, this.source, "k1")).isEqualTo(Receipt.NEW);
			assertThat(this.inbox.receive(connection, this.source, "k1")).isEqualTo(Receipt.DUPLICATE);
			connection.commit();
		}
		assertThat(this.inbox.receive(this.source, "k1")).isEqualTo(Receipt.DUPLICATE);
	}

	@Test
	void keepsTheCallersTransactionUsableAfterADuplicate() throws SQLException {
		this.inbox.receive(this.source, "seen");
		try (Connection connection = transaction()) {
			insertBusinessRow(connection, "before", "A");
			assertThat(this.inbox.receive(connection, this.source, "seen")).isEqualTo(Receipt.DUPLICATE);
			insertBusinessRow(connection, "after", "A");
			assertThat(this.inbox.receive(connection, this.source, "fresh")).isEqualTo(Receipt.NEW);
			connection.commit();
		}
		assertThat(businessRows()).containsExactlyInAnyOrder("before", "after");
		assertThat(this.inbox.contains(this.source, "fresh")).isTrue();
	}

	@Test
	void forgetsTheKeyWhenTheBusinessTransactionRollsBack() throws SQLException {
		try (Connection connection = transaction()) {
			assertThat(this.inbox.receive(connection, this.source, "rolled-back")).isEqualTo(Receipt.NEW);
			insertBusinessRow(connection, "rolled-back", "A");
			connection.rollback();
		}
		assertThat(this.inbox.contains(this.source, "rolled-back")).isFalse();
		assertThat(businessRows()).isEmpty();
		try (Connection connection = transaction()) {
			assertThat(this.inbox.receive(connection, this.source, "rolled-back")).isEqualTo(Receipt.NEW);
			insertBusinessRow(connection, "rolled-back", "A");
			connection.commit();
		}
		assertThat(businessRows()).containsExactly("rolled-back");
	}

	@Test
	void recordsAtOnceWithoutASurroundingTransaction() throws SQLException {
		assertThat(this.inbox.receive(this.source, "auto-commit")).isEqualTo(Receipt.NEW);
		try (Connection other = database().connect()) {
			assertThat(Inbox.builder(dev.polling.jdbc.ConnectionProvider.of(other)).build()
				.contains(this.source, "auto-commit")).isTrue();
		}
	}

	@Test
	void treatsTheSameKeyFromAnotherSourceAsNew() {
		assertThat(this.inbox.receive(this.source + "-a", "shared-key")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source + "-b", "shared-key")).isEqualTo(Receipt.NEW);
	}

	@Test
	void comparesKeysExactlyIncludingLetterCaseAndAccents() {
		assertThat(this.inbox.receive(this.source, "Key@Example.com")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "key@example.com")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "kéy@example.com")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "Key@Example.com")).isEqualTo(Receipt.DUPLICATE);
	}

	@Test
	void storesKeysAndSourcesOfTheMaximumLengthInAnyScript() {
		String longSource = "ü".repeat(Inbox.MAX_SOURCE_LENGTH);
		String ascii = "x".repeat(Inbox.MAX_KEY_LENGTH);
		String umlauts = "ä".repeat(Inbox.MAX_KEY_LENGTH);
		String emoji = "\uD83D\uDCE8".repeat(Inbox.MAX_KEY_LENGTH / 2);
		for (String key : List.of(ascii, umlauts, emoji)) {
			assertThat(this.inbox.receive(longSource, key)).as(key).isEqualTo(Receipt.NEW);
			assertThat(this.inbox.receive(longSource, key)).as(key).isEqualTo(Receipt.DUPLICATE);
		}
		assertThat(this.inbox.receive(longSource, InboxKeys.sha256(ascii))).isEqualTo(Receipt.NEW);
	}

	@Test
	void stampsEntriesWithTheDatabaseClock() throws SQLException {
		DatabaseTime time = new DatabaseTime(database().dialect());
		Instant before;
		Instant receivedAt;
		try (Connection connection = database().connect()) {
			before = time.currentTime(connection);
			this.inbox.receive(connection, this.source, "stamped");
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT received_at FROM polling_inbox WHERE source = ? AND external_key = ?")) {
				statement.setString(1, this.source);
				statement.setString(2, "stamped");
				try (ResultSet result = statement.executeQuery()) {
					assertThat(result.next()).isTrue();
					receivedAt = time.read(result, 1);
				}
			}
		}
		assertThat(receivedAt).isBetween(before.minusSeconds(1), before.plusSeconds(60));
		assertThat(Duration.between(Instant.now(), receivedAt).abs()).isLessThan(Duration.ofMinutes(5));
	}

	@Test
	void purgesOnlyEntriesOlderThanTheRetention() throws SQLException {
		for (int i = 0; i < 25; i++) {
			this.inbox.receive(this.source, "old-" + i);
			this.inbox.receive(this.source, "young-" + i);
		}
		backdate("old-%", Duration.ofDays(2));
		Inbox smallBatches = Inbox.builder(this.dataSource).purgeBatchSize(7).build();

		int deleted = smallBatches.purge(Duration.ofDays(1));

		assertThat(deleted).isGreaterThanOrEqualTo(25);
		assertThat(countEntries()).isEqualTo(25);
		assertThat(this.inbox.receive(this.source, "old-3")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "young-3")).isEqualTo(Receipt.DUPLICATE);
	}

	@Test
	void purgesFromTwoInstancesAtOnceWithoutErrors() throws Exception {
		try (Connection connection = transaction()) {
			for (int i = 0; i < 3000; i++) {
				this.inbox.receive(connection, this.source, "purge-" + i);
			}
			connection.commit();
		}
		backdate("purge-%", Duration.ofDays(10));
		Inbox first = Inbox.builder(database().newDataSource()).purgeBatchSize(100).build();
		Inbox second = Inbox.builder(database().newDataSource()).purgeBatchSize(100).build();
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			CountDownLatch start = new CountDownLatch(1);
			Future<Integer> a = executor.submit(() -> {
				start.await();
				return first.purge(Duration.ofDays(1));
			});
			Future<Integer> b = executor.submit(() -> {
				start.await();
				return second.purge(Duration.ofDays(1));
			});
			start.countDown();
			int total = a.get(2, TimeUnit.MINUTES) + b.get(2, TimeUnit.MINUTES);
			assertThat(total).isGreaterThanOrEqualTo(3000);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(countEntries()).isZero();
	}

	@Test
	void tellsTheListenerEveryOutcome() {
		Map<Receipt, AtomicInteger> counts = new ConcurrentHashMap<>();
		List<Integer> purged = new CopyOnWriteArrayList<>();
		Inbox listened = Inbox.builder(this.dataSource).listener(new InboxListener() {
			@Override
			public void onReceipt(String source, Receipt receipt) {
				counts.computeIfAbsent(receipt, (r) -> new AtomicInteger()).incrementAndGet();
			}

			@Override
			public void onPurge(int deleted) {
				purged.add(deleted);
			}
		}).build();

		listened.receive(this.source, "x");
		listened.receive(this.source, "x");
		listened.receive(this.source, "y");
		listened.purge(Duration.ofDays(365));

		assertThat(counts.get(Receipt.NEW)).hasValue(2);
		assertThat(counts.get(Receipt.DUPLICATE)).hasValue(1);
		assertThat(purged).containsExactly(0);
	}

	@Test
	void createsTheSchemaAgainWithoutErrorAndUnderAnotherPrefix() {
		Schema.migrate(this.dataSource, database().dialect(), TableNames.defaults());
		TableNames custom = new TableNames("app_poll_");
		Schema.migrate(this.dataSource, database().dialect(), custom);
		Inbox other = Inbox.builder(this.dataSource).tables(custom).build();

		assertThat(other.receive(this.source, "prefixed")).isEqualTo(Receipt.NEW);
		assertThat(this.inbox.receive(this.source, "prefixed")).isEqualTo(Receipt.NEW);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM app_poll_inbox")).isEqualTo(1);
	}

	/**
	 * Two instances (two data sources) with 8 worker threads each process the same 10,000 messages
	 * in the same order, every message in a transaction that records the receipt and, if NEW,
	 * inserts a business row. The business table has no unique constraint, so a double processing
	 * would show as a duplicate row.
	 */
	@Test
	void processesEveryMessageExactlyOnceWhenTwoInstancesReceiveTheSameKeysConcurrently() throws Exception {
		int messages = 10_000;
		int threadsPerInstance = 8;
		List<String> keys = IntStream.range(0, messages).mapToObj((i) -> "<" + i + ".concurrent@mail.example>")
			.map(InboxKeys::messageId)
			.toList();
		LongAdder newReceipts = new LongAdder();
		LongAdder duplicateReceipts = new LongAdder();
		List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
		ExecutorService executor = Executors.newFixedThreadPool(2 * threadsPerInstance);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (String instance : List.of("A", "B")) {
			DataSource instanceDataSource = database().newDataSource();
			Inbox instanceInbox = Inbox.builder(instanceDataSource).build();
			AtomicInteger cursor = new AtomicInteger();
			for (int t = 0; t < threadsPerInstance; t++) {
				workers.add(executor.submit(() -> {
					try (Connection connection = instanceDataSource.getConnection()) {
						connection.setAutoCommit(false);
						start.await();
						for (int i = cursor.getAndIncrement(); i < messages; i = cursor.getAndIncrement()) {
							String key = keys.get(i);
							try {
								Receipt receipt = instanceInbox.receive(connection, this.source, key);
								if (receipt.isNew()) {
									insertBusinessRow(connection, key, instance);
									newReceipts.increment();
								}
								else {
									duplicateReceipts.increment();
								}
								connection.commit();
							}
							catch (SQLException | RuntimeException ex) {
								failures.add(ex);
								connection.rollback();
							}
						}
					}
					return null;
				}));
			}
		}
		start.countDown();
		try {
			for (Future<?> worker : workers) {
				worker.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}

		assertThat(failures).as("failed transactions").isEmpty();
		assertThat(newReceipts.sum()).isEqualTo(messages);
		assertThat(duplicateReceipts.sum()).isEqualTo(messages);
		assertThat(countBusinessRows()).isEqualTo(messages);
		assertThat(database().queryForLong("SELECT COUNT(*) FROM (SELECT message_key FROM business_row WHERE source = '"
				+ this.source + "' GROUP BY message_key HAVING COUNT(*) > 1) d"))
			.as("duplicate business rows")
			.isZero();
		assertThat(countEntries()).isEqualTo(messages);
	}

	private Connection transaction() throws SQLException {
		Connection connection = database().connect();
		connection.setAutoCommit(false);
		return connection;
	}

	private void insertBusinessRow(Connection connection, String key, String instance) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("INSERT INTO business_row (source, message_key, instance) VALUES (?, ?, ?)")) {
			statement.setString(1, this.source);
			statement.setString(2, key);
			statement.setString(3, instance);
			statement.executeUpdate();
		}
	}

	private List<String> businessRows() throws SQLException {
		List<String> keys = new ArrayList<>();
		try (Connection connection = database().connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT message_key FROM business_row WHERE source = ?")) {
			statement.setString(1, this.source);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					keys.add(result.getString(1));
				}
			}
		}
		return keys;
	}

	private long countBusinessRows() {
		return database().queryForLong("SELECT COUNT(*) FROM business_row WHERE source = '" + this.source + "'");
	}

	private long countEntries() {
		return database().queryForLong("SELECT COUNT(*) FROM polling_inbox WHERE source = '" + this.source + "'");
	}

	private void backdate(String keyPattern, Duration age) throws SQLException {
		DatabaseTime time = new DatabaseTime(database().dialect());
		try (Connection connection = database().connect();
				PreparedStatement statement = connection.prepareStatement("UPDATE polling_inbox SET received_at = "
						+ time.nowMinusMillis() + " WHERE source = ? AND external_key LIKE ?")) {
			statement.setLong(1, age.toMillis());
			statement.setString(2, this.source);
			statement.setString(3, keyPattern);
			assertThat(statement.executeUpdate()).isPositive();
		}
	}

}
