package dev.polling.boot.autoconfigure.jdbc;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Tells Boot's database initialization ordering that a {@link PollingJdbcSchemaInitializer} bean
 * initializes the database: beans marked {@code @DependsOnDatabaseInitialization} (and Boot's
 * own, such as {@code JdbcTemplate} users detected by it) are created after polling's tables are in
 * place. Ordered after Flyway, Liquibase and {@code spring.sql.init} scripts. Registered in
 * {@code META-INF/spring.factories}.
 */
class PollingJdbcSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	/** After the detectors of Flyway, Liquibase and the DataSource scripts. */
	static final int ORDER = Ordered.LOWEST_PRECEDENCE - 50;

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		// polling-jdbc is optional: without it there is no initializer, and its class must not be touched
		if (!ClassUtils.isPresent(PollingJdbcAutoConfiguration.POLLING_JDBC_CLASS,
				PollingJdbcSchemaInitializerDetector.class.getClassLoader())) {
			return Set.of();
		}
		return Set.of(PollingJdbcSchemaInitializer.class);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
