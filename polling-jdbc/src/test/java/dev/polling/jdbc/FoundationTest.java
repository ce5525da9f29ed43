package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.Test;

class FoundationTest {

	@Test
	void mapsProductNamesToDialects() {
		assertThat(Dialect.fromProductName("PostgreSQL")).isEqualTo(Dialect.POSTGRESQL);
		assertThat(Dialect.fromProductName("MariaDB")).isEqualTo(Dialect.MARIADB);
		assertThat(Dialect.fromProductName("H2")).isEqualTo(Dialect.H2);
	}

	/**
	 * Issue 16, defect 6: MySQL was claimed (mapped to the MariaDB dialect) but never tested, and the
	 * coordinator's FOR UPDATE WAIT n does not exist there. No MySQL server can be installed on the
	 * build machines, so this is checked on the product name the drivers report.
	 */
	@Test
	void refusesMySqlWithOneMessageNamingWhyAndWhatToUse() {
		assertThatIllegalStateException().isThrownBy(() -> Dialect.fromProductName("MySQL"))
			.withMessageContaining("'MySQL' is not supported")
			.withMessageContaining("FOR UPDATE WAIT n")
			.withMessageContaining("MariaDB 10.6+")
			.withMessageContaining("remove dev.polling:polling-jdbc");
	}

	@Test
	void rejectsAnUnsupportedDatabaseListingTheSupportedOnes() {
		assertThatIllegalStateException().isThrownBy(() -> Dialect.fromProductName("Oracle"))
			.withMessageContaining("'Oracle' is not supported")
			.withMessageContaining("postgresql, mariadb, h2");
	}

	@Test
	void shipsEveryMigrationForEveryDialectWithThePrefixApplied() {
		assertThat(Schema.migrations()).extracting(Schema.Migration::version).containsExactly(1, 2, 3, 4);
		for (Dialect dialect : Dialect.values()) {
			for (Schema.Migration migration : Schema.migrations()) {
				assertThat(Schema.statements(dialect, migration, new TableNames("app_")))
					.as(migration.resource(dialect))
					.isNotEmpty()
					.allSatisfy((sql) -> assertThat(sql).doesNotContain("${prefix}").doesNotEndWith(";"));
			}
			assertThat(Schema.statements(dialect, Schema.migrations().get(0), new TableNames("app_")))
				.anySatisfy((sql) -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app_inbox"));
		}
	}

	@Test
	void namesTablesWithTheDefaultPrefix() {
		assertThat(TableNames.defaults().inbox()).isEqualTo("polling_inbox");
		assertThat(new TableNames("").inbox()).isEqualTo("inbox");
	}

	@Test
	void rejectsAPrefixThatIsNotAPlainIdentifier() {
		assertThatIllegalArgumentException().isThrownBy(() -> new TableNames("polling; DROP TABLE x; --"))
			.withMessageStartingWith("table prefix 'polling; DROP TABLE x; --' is invalid")
			.withMessageContaining("letters, digits or underscores");
		assertThatIllegalArgumentException().isThrownBy(() -> new TableNames("p".repeat(31)))
			.withMessageContaining("at most 30");
	}

}
