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
		assertThat(Dialect.fromProductName("MySQL")).isEqualTo(Dialect.MARIADB);
		assertThat(Dialect.fromProductName("H2")).isEqualTo(Dialect.H2);
	}

	@Test
	void rejectsAnUnsupportedDatabaseListingTheSupportedOnes() {
		assertThatIllegalStateException().isThrownBy(() -> Dialect.fromProductName("Oracle"))
			.withMessageContaining("'Oracle' is not supported")
			.withMessageContaining("postgresql, mariadb, h2");
	}

	@Test
	void shipsASchemaScriptPerDialectWithThePrefixApplied() {
		for (Dialect dialect : Dialect.values()) {
			assertThat(Schema.statements(dialect, new TableNames("app_")))
				.as(dialect.schemaResource())
				.isNotEmpty()
				.allSatisfy((sql) -> assertThat(sql).doesNotContain("${prefix}").doesNotEndWith(";"))
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
