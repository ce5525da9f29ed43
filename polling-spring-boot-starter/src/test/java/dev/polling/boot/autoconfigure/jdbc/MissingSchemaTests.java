package dev.polling.boot.autoconfigure.jdbc;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;
import dev.polling.jdbc.test.TestDatabase;
import dev.polling.jdbc.test.TestDatabases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * {@code polling.coordination.kind: jdbc} on a PostgreSQL database without polling's tables used to
 * start with health UP and nobody polling (issue 31 item 3): a real {@code SpringApplication} on a
 * real PostgreSQL (the jdbc module's test server).
 */
@ExtendWith(OutputCaptureExtension.class)
class MissingSchemaTests {

	private static TestDatabase database;

	@Test
	void missingTablesFailTheStartNamingInitializeSchemaAndTheMigrationTools(CapturedOutput output) {
		database = TestDatabases.postgresql();
		assertThatException().isThrownBy(this::run);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: polling.jdbc.initialize-schema")
			.contains("Value: embedded")
			.contains("polling's tables are missing (polling_coordination")
			.contains("Fix: set polling.jdbc.initialize-schema=always")
			.contains("Flyway (classpath:dev/polling/jdbc/migration/postgresql")
			.contains("Liquibase (dev/polling/jdbc/migration/changelog.xml)");
	}

	@Test
	void tablesOfAnOlderVersionFailTheStart(CapturedOutput output) {
		database = TestDatabases.postgresql();
		// the tables of 0.1.0, as an old Flyway run or the 0.1.0 starter left them: no version table
		database.execute(Schema.statements(Dialect.POSTGRESQL, Schema.migrations().get(0), TableNames.defaults())
			.toArray(String[]::new));
		assertThatException().isThrownBy(this::run);
		assertThat(output).contains("Property: polling.jdbc.initialize-schema")
			.contains("polling's tables are outdated")
			.contains("Fix: set polling.jdbc.initialize-schema=always");
	}

	@Test
	void tablesMadeByAMigrationToolStart() {
		database = TestDatabases.postgresql();
		// every version's scripts as Flyway or Liquibase runs them: no polling_schema_version
		for (Schema.Migration migration : Schema.migrations()) {
			database.execute(Schema.statements(Dialect.POSTGRESQL, migration, TableNames.defaults()).toArray(String[]::new));
		}
		try (ConfigurableApplicationContext context = run()) {
			assertThat(context.getBean(PollingManager.class).clusterIds()).containsExactly("MAILBOX");
		}
	}

	private ConfigurableApplicationContext run() {
		return new SpringApplicationBuilder(PostgresApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "polling.jmx.domain=dev.polling.missingschematest",
					"polling.coordination.kind=jdbc", "polling.clusters.MAILBOX.wait-time=10s")
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PostgresApplication {

		@Bean
		DataSource dataSource() {
			return database.newDataSource();
		}

	}

}
