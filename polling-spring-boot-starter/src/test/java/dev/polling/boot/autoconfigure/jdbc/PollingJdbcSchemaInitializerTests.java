package dev.polling.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Schema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link PollingJdbcSchemaInitializer} through Boot's database initialization SPI
 * ({@link PollingJdbcSchemaInitializerDetector}).
 */
class PollingJdbcSchemaInitializerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PollingJdbcAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "polling.jdbc.inbox.enabled=true");

	/**
	 * Issue 18, item 6: a user bean created before the auto-configuration's beans (user
	 * configuration comes first) reads polling's tables while it is created; marked
	 * {@code @DependsOnDatabaseInitialization}, it waits for the migrations.
	 */
	@Test
	void aBeanThatDependsOnDatabaseInitializationSeesTheTables() {
		this.runner.withUserConfiguration(TableReaderConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(TableReader.class).version).isEqualTo(Schema.latestVersion());
			assertThat(context.getBean(TableReader.class).inboxRows).isZero();
		});
	}

	@Test
	void theDetectorNamesTheInitializerBean() {
		this.runner.run((context) -> {
			var detected = new PollingJdbcSchemaInitializerDetector().detect(context.getBeanFactory());
			assertThat(detected).containsExactly("pollingJdbcSchemaInitializer");
		});
	}

	@Test
	void neverLeavesTheDatabaseAloneAndFailsTheStartWithoutTables() {
		this.runner.withPropertyValues("polling.jdbc.initialize-schema=never")
			.withUserConfiguration(TableReaderConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("polling's tables are missing")
				.hasMessageContaining("polling.jdbc.initialize-schema"));
	}

	@Configuration(proxyBeanMethods = false)
	static class TableReaderConfiguration {

		@Bean
		@DependsOnDatabaseInitialization
		TableReader tableReader(DataSource dataSource) throws SQLException {
			return new TableReader(dataSource);
		}

	}

	static final class TableReader {

		final int version;

		final long inboxRows;

		TableReader(DataSource dataSource) throws SQLException {
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				this.version = read(statement, "SELECT MAX(version) FROM polling_schema_version");
				this.inboxRows = read(statement, "SELECT COUNT(*) FROM polling_inbox");
			}
		}

		private static int read(Statement statement, String sql) throws SQLException {
			try (ResultSet result = statement.executeQuery(sql)) {
				result.next();
				return result.getInt(1);
			}
		}

	}

}
