package dev.polling.benchmarks.startup;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.polling.boot.annotation.PollingCycle;

/**
 * The application whose start {@link StartupBenchmark} times: twenty clusters polled on one-second
 * timers, as a user of the starter writes it. Without the starter the same beans start and the
 * annotations are inert.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableScheduling
public class StartupApplication {

	@Bean
	Pollers pollers() {
		return new Pollers();
	}

	/**
	 * The application uses its database at start, as one with a database does (else the database
	 * driver's own start, about a second, would count as the starter's).
	 */
	@Bean
	ApplicationRunner touchDatabase(DataSource dataSource) {
		return (args) -> {
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS app_orders (id BIGINT PRIMARY KEY, text VARCHAR(100))");
				statement.executeQuery("SELECT COUNT(*) FROM app_orders").close();
			}
		};
	}

	/** One method per cluster. */
	public static class Pollers {

		final AtomicLong cycles = new AtomicLong();

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C01")
		void c01() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C02")
		void c02() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C03")
		void c03() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C04")
		void c04() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C05")
		void c05() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C06")
		void c06() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C07")
		void c07() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C08")
		void c08() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C09")
		void c09() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C10")
		void c10() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C11")
		void c11() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C12")
		void c12() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C13")
		void c13() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C14")
		void c14() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C15")
		void c15() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C16")
		void c16() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C17")
		void c17() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C18")
		void c18() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C19")
		void c19() {
			this.cycles.incrementAndGet();
		}

		@Scheduled(fixedDelay = 1000)
		@PollingCycle("C20")
		void c20() {
			this.cycles.incrementAndGet();
		}

	}

}
