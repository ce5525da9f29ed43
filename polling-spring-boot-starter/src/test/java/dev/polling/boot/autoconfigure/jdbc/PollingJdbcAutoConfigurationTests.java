package dev.polling.boot.autoconfigure.jdbc;

import static dev.polling.boot.autoconfigure.FailureReports.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.inbox.Inbox;
import dev.polling.jdbc.inbox.Receipt;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

class PollingJdbcAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				TransactionAutoConfiguration.class, PollingJdbcAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.jdbc.inbox.enabled=true");

	@Test
	void providesAnInboxAndCreatesItsTableOnAnEmbeddedDatabase() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(Inbox.class).hasSingleBean(InboxPurgeScheduler.class);
			Inbox inbox = context.getBean(Inbox.class);
			assertThat(inbox.dialect()).isEqualTo(Dialect.H2);
			assertThat(context.getBean(PollingJdbcSchemaInitializer.class).isInitialized()).isTrue();
			assertThat(inbox.receive("mailbox", "m1@example.com")).isEqualTo(Receipt.NEW);
			assertThat(inbox.receive("mailbox", "m1@example.com")).isEqualTo(Receipt.DUPLICATE);
		});
	}

	@Test
	void leavesTheSchemaAloneWhenInitializeSchemaIsNeverButFailsTheStartWithoutTables() {
		this.runner.withPropertyValues("polling.jdbc.initialize-schema=never").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("polling's tables are missing")
				.hasMessageContaining("polling.jdbc.initialize-schema=never does not touch the schema");
		});
	}

	@Test
	void namesTheTablesWithTheConfiguredPrefix() {
		this.runner.withPropertyValues("polling.jdbc.table-prefix=app_").run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			assertThat(h2TableCount(jdbc, "APP_INBOX")).isOne();
			assertThat(h2TableCount(jdbc, "POLLING_INBOX")).isZero();
			assertThat(context.getBean(Inbox.class).receive("mailbox", "k")).isEqualTo(Receipt.NEW);
		});
	}

	@Test
	void createsTheTablesOnPostgreSqlOnlyWhenInitializeSchemaIsAlways() {
		TestDatabase postgres = TestDatabases.postgresql();
		ApplicationContextRunner onPostgres = this.runner.withBean(DataSource.class, postgres::newDataSource);
		onPostgres.run((context) -> {
			// embedded (the default) does not create them on a server database, and fails the start without them
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("polling's tables are missing");
			assertThat(postgres.queryForLong(
					"SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'polling_inbox'"))
				.isZero();
		});
		onPostgres.withPropertyValues("polling.jdbc.initialize-schema=always").run((context) -> {
			assertThat(context.getBean(PollingJdbcSchemaInitializer.class).isInitialized()).isTrue();
			assertThat(context.getBean(Inbox.class).receive("mailbox", "k")).isEqualTo(Receipt.NEW);
		});
	}

	@Test
	void joinsATransactionTemplateAndForgetsTheKeyWhenItRollsBack() {
		this.runner.run((context) -> {
			Inbox inbox = context.getBean(Inbox.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business_row (message_key VARCHAR(255) NOT NULL)");
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);

			transaction.executeWithoutResult((status) -> {
				assertThat(inbox.receive("mailbox", "rolled-back")).isEqualTo(Receipt.NEW);
				jdbc.update("INSERT INTO business_row VALUES (?)", "rolled-back");
				status.setRollbackOnly();
			});

			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM business_row", Integer.class)).isZero();
			assertThat(inbox.contains("mailbox", "rolled-back")).isFalse();
			assertThat(inbox.receive("mailbox", "rolled-back")).isEqualTo(Receipt.NEW);
		});
	}

	@Test
	void joinsATransactionalMethodOnPostgreSqlWithoutAbortingItOnADuplicate() {
		TestDatabase postgres = TestDatabases.postgresql();
		postgres.execute("CREATE TABLE business_row (message_key VARCHAR(255) NOT NULL)");
		this.runner.withBean(DataSource.class, postgres::newDataSource)
			.withPropertyValues("polling.jdbc.initialize-schema=always")
			.withUserConfiguration(MessageHandlerConfiguration.class)
			.run((context) -> {
				MessageHandler handler = context.getBean(MessageHandler.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);

				assertThat(handler.handle("m1")).isEqualTo(Receipt.NEW);
				assertThat(handler.handle("m1")).isEqualTo(Receipt.DUPLICATE);
				assertThatIllegalStateException().isThrownBy(() -> handler.handleAndFail("m2"));
				assertThat(handler.handle("m2")).isEqualTo(Receipt.NEW);

				// a duplicate inside the transaction, then more work that must commit
				assertThat(handler.handleTwiceThenWork("m3")).isEqualTo(Receipt.DUPLICATE);
				assertThat(jdbc.queryForList("SELECT message_key FROM business_row ORDER BY message_key", String.class))
					.containsExactly("m1", "m2", "m3", "m3-after-duplicate");
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesAnInbox() {
		this.runner.withUserConfiguration(UserInboxConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Inbox.class);
			assertThat(context.getBean(Inbox.class).tables().prefix()).isEqualTo("mine_");
		});
	}

	@Test
	void staysOffWithoutADataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PollingJdbcAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(Inbox.class)
				.doesNotHaveBean(PollingJdbcSchemaInitializer.class));
	}

	/**
	 * Issue 18, item 2: an application that coordinates over JMX and has a DataSource for its own
	 * use gets none of the database parts: no polling bean that touches the database, no table, no
	 * connection borrowed, no polling timer.
	 */
	@Test
	void aJmxOnlyApplicationWithADataSourceGetsNoTablesNoConnectionsAndNoTimers() throws Exception {
		org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
		h2.setURL("jdbc:h2:mem:jmx-only-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
		java.util.concurrent.atomic.AtomicInteger borrowed = new java.util.concurrent.atomic.AtomicInteger();
		java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
		DataSource counting = new org.springframework.jdbc.datasource.DelegatingDataSource(h2) {

			@Override
			public java.sql.Connection getConnection() throws java.sql.SQLException {
				borrowed.incrementAndGet();
				return super.getConnection();
			}

		};
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(PollingJdbcAutoConfiguration.class,
					dev.polling.boot.autoconfigure.PollingAutoConfiguration.class))
			.withBean(DataSource.class, () -> counting)
			.withPropertyValues("polling.instance-id=jmx-only", "polling.clusters.MAILBOX.wait-time=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(dev.polling.core.PollingManager.class)
					.doesNotHaveBean(Inbox.class)
					.doesNotHaveBean(dev.polling.jdbc.queue.WorkQueue.class)
					.doesNotHaveBean(dev.polling.jdbc.delivery.DeliveryGuard.class)
					.doesNotHaveBean(dev.polling.jdbc.jobs.JobScheduler.class)
					.doesNotHaveBean(dev.polling.jdbc.coordination.JdbcCoordinator.class)
					.doesNotHaveBean(PollingJdbcSchemaInitializer.class)
					.doesNotHaveBean(PollingTaskSchedulers.class);
				assertThat(borrowed).as("connections borrowed by polling").hasValue(0);
				assertThat(Thread.getAllStackTraces().keySet()).filteredOn((thread) -> !before.contains(thread))
					.extracting(Thread::getName)
					.as("threads started with the context")
					// the JMX coordination's own start-up checks may still run (the peer check, and the check for a
					// cluster without a decision one wait time after the start); no thread of the database parts
					.noneMatch((name) -> name.startsWith("polling-") && !name.equals("polling-peer-check")
							&& !name.startsWith("polling-start-check-"));
			});
		try (java.sql.Connection connection = h2.getConnection();
				java.sql.ResultSet tables = connection.getMetaData().getTables(null, null, "POLLING%", null)) {
			assertThat(tables.next()).as("a polling table").isFalse();
		}
	}

	/** Database coordination switches the coordinator (and the schema) on, and nothing else. */
	@Test
	void aClusterCoordinatedThroughTheDatabaseGetsTheCoordinatorAndTheTablesOnly() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PollingJdbcAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.clusters.MAILBOX.coordination=jdbc")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(dev.polling.jdbc.coordination.JdbcCoordinator.class)
				.hasSingleBean(PollingJdbcSchemaInitializer.class)
				.doesNotHaveBean(Inbox.class)
				.doesNotHaveBean(dev.polling.jdbc.queue.WorkQueue.class));
	}

	@Test
	void staysOffWithoutSpringJdbcOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
			.run((context) -> assertThat(context).doesNotHaveBean(Inbox.class));
	}

	@Test
	void staysOffWhenPollingIsDisabled() {
		this.runner.withPropertyValues("polling.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Inbox.class));
	}

	@Test
	void providesNoInboxWhenTheInboxIsDisabled() {
		this.runner.withPropertyValues("polling.jdbc.inbox.enabled=false", "polling.jdbc.queue.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(Inbox.class)
				.doesNotHaveBean(InboxMetrics.class)
				.hasSingleBean(PollingJdbcSchemaInitializer.class));
	}

	@Test
	void failsAtStartupOnAnInvalidTablePrefixNamingTheProperty() {
		assertRefused(this.runner, "polling.jdbc.table-prefix", "polling-", "table prefix 'polling-' is invalid");
	}

	@Test
	void failsAtStartupOnANonPositiveRetentionNamingTheProperty() {
		assertRefused(this.runner, "polling.jdbc.inbox.retention.period", "0s", "Reason: the value must be positive");
	}

	@Test
	void countsReceiptsBySourceAndOutcome() {
		this.runner.run((context) -> {
			MeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(InboxMetrics.class).bindTo(registry);
			Inbox inbox = context.getBean(Inbox.class);

			inbox.receive("mailbox-a", "k1");
			inbox.receive("mailbox-a", "k1");
			inbox.receive("mailbox-a", "k2");

			assertThat(registry.get(InboxMetrics.RECEIPTS).tag("source", "mailbox-a").tag("outcome", "new").counter()
				.count()).isEqualTo(2);
			assertThat(registry.get(InboxMetrics.RECEIPTS).tag("outcome", "duplicate").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void providesNoMetersWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterBinder.class))
			.run((context) -> assertThat(context).hasSingleBean(Inbox.class).doesNotHaveBean(InboxMetrics.class));
	}

	@Test
	void purgesEntriesOlderThanTheRetentionOnSchedule() {
		this.runner.withPropertyValues("polling.jdbc.inbox.retention.period=1d", "polling.jdbc.inbox.retention.purge-interval=100ms")
			.run((context) -> {
				Inbox inbox = context.getBean(Inbox.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				inbox.receive("mailbox", "old");
				inbox.receive("mailbox", "young");
				jdbc.update("UPDATE polling_inbox SET received_at = DATEADD(DAY, -2, CURRENT_TIMESTAMP) "
						+ "WHERE external_key = 'old'");

				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !inbox.contains("mailbox", "old"));
				assertThat(inbox.contains("mailbox", "young")).isTrue();
			});
	}

	private static int h2TableCount(JdbcTemplate jdbc, String table) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?",
				Integer.class, table);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserInboxConfiguration {

		@Bean
		Inbox myInbox(DataSource dataSource) {
			return Inbox.builder(dataSource).tables(new dev.polling.jdbc.TableNames("mine_")).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MessageHandlerConfiguration {

		@Bean
		MessageHandler messageHandler(Inbox inbox, JdbcTemplate jdbc) {
			return new MessageHandler(inbox, jdbc);
		}

	}

	/** What an application's message handler looks like. */
	static class MessageHandler {

		private final Inbox inbox;

		private final JdbcTemplate jdbc;

		MessageHandler(Inbox inbox, JdbcTemplate jdbc) {
			this.inbox = inbox;
			this.jdbc = jdbc;
		}

		@Transactional
		public Receipt handle(String key) {
			Receipt receipt = this.inbox.receive("mailbox", key);
			if (receipt.isNew()) {
				this.jdbc.update("INSERT INTO business_row VALUES (?)", key);
			}
			return receipt;
		}

		@Transactional
		public Receipt handleAndFail(String key) {
			handle(key);
			throw new IllegalStateException("processing " + key + " failed");
		}

		@Transactional
		public Receipt handleTwiceThenWork(String key) {
			handle(key);
			Receipt second = this.inbox.receive("mailbox", key);
			this.jdbc.update("INSERT INTO business_row VALUES (?)", key + "-after-duplicate");
			return second;
		}

	}

}
