package dev.polling.sample.coordination;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The lock store for {@code polling.coordination.kind=shedlock}: ShedLock's JDBC provider on the sample's
 * own database (table {@code shedlock} from schema.sql), in database time as ShedLock recommends.
 * An application that already uses ShedLock has this bean; the starter takes it from there.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "polling.coordination.kind", havingValue = "shedlock")
class SampleShedLockConfiguration {

	@Bean
	LockProvider sampleLockProvider(DataSource dataSource) {
		return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(dataSource))
			.usingDbTime()
			.build());
	}

}
