package dev.polling.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;

/**
 * Issue 30's benchmark: what the operator console costs. A web application with the starter, the
 * console, the work queue and the delivery guard on the durable embedded PostgreSQL; 20 clusters
 * decided every second; a queue table of 100,000 rows (about 45 % DONE, 45 % NEW, 5 % FAILED, 5 %
 * DEAD, over five queues). Measures over HTTP, as the page asks:
 * <ul>
 * <li>{@code GET /actuator/console/api/state} (the page data): median, p90, p99 and max of
 * sequential requests after a warm-up;</li>
 * <li>{@code GET /actuator/console/api/changes} (the question an open page asks every 3 s): the
 * same;</li>
 * <li>database statements: per request of each kind, and per minute of one open page (a client
 * that does what console.js does for a minute), both minus what the application runs meanwhile
 * without a page (its own background: the queue workers' polls), measured in the same run.</li>
 * </ul>
 * Usage: {@code polling-benchmarks/run.sh ConsoleBenchmark [requests=300] [rows=100000]}. Last line:
 * {@code console: state median=... changes median=... statementsPerState=... pageStatementsPerMinute=...}.
 */
public final class ConsoleBenchmark {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static volatile CountingDataSource counting;

	private ConsoleBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int requests = (args.length > 0) ? Integer.parseInt(args[0]) : 300;
		int rows = (args.length > 1) ? Integer.parseInt(args[1]) : 100_000;
		try (BenchDatabases.Postgres postgres = BenchDatabases.Postgres.start()) {
			Schema.migrate(postgres.admin(), Dialect.POSTGRESQL, TableNames.defaults());
			fill(postgres.admin(), rows);
			System.out.println("console: PostgreSQL " + BenchSql.version(postgres.admin()) + " " + postgres.description() + ", "
					+ rows + " queue rows " + counts(postgres.admin()) + ", " + Runtime.getRuntime().availableProcessors()
					+ " cores, load " + loadAverage());
			SpringApplication application = new SpringApplication(ConsoleApplication.class);
			application.setDefaultProperties(properties(postgres.url()));
			try (ConfigurableApplicationContext context = application.run()) {
				String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + "/actuator/console";
				PollingManager manager = context.getBean(PollingManager.class);
				// every cluster decided at least once, so the page shows decisions, not "no decision yet"
				long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
				while (manager.statuses().stream().anyMatch((s) -> s.lastDecision() == null) && System.nanoTime() < until) {
					Thread.sleep(100);
				}
				int bytes = get(base + "/api/state").length();
				for (int i = 0; i < 50; i++) { // warm-up
					get(base + "/api/state");
					get(base + "/api/changes");
				}
				breakdown(context, 50);
				double background = backgroundPerSecond(Duration.ofSeconds(20));
				Timed state = timed(base + "/api/state", requests, background, 0);
				// each request after the counts' one-second sharing expired: every request reads the counts again
				Timed cold = timed(base + "/api/state", 30, background, 1100);
				Timed changes = timed(base + "/api/changes", requests, background, 0);
				System.out.printf(Locale.ROOT, "console: api/state (%d bytes, %d clusters): %s%n", bytes, manager.clusterIds().size(), state);
				System.out.printf(Locale.ROOT, "console: api/state, counts read again for each request (30 requests 1.1 s apart): %s%n", cold);
				System.out.printf(Locale.ROOT, "console: api/changes: %s%n", changes);
				System.out.printf(Locale.ROOT, "console: background of the application without a page: %.1f statements/s%n", background);
				double page = openPage(base, Duration.ofMinutes(1), background);
				System.out.printf(Locale.ROOT,
						"console: state median=%.2fms p99=%.2fms coldState median=%.2fms changes median=%.2fms p99=%.2fms "
								+ "statementsPerState=%.1f statementsPerChanges=%.1f pageStatementsPerMinute=%.0f rows=%d requests=%d%n",
						state.median, state.p99, cold.median, changes.median, changes.p99, state.statementsPerRequest,
						changes.statementsPerRequest, page, rows, requests);
			}
		}
		System.exit(0);
	}

	/** The queue's rows, in one statement: no business keys (no key rows needed), five queues. */
	private static void fill(DataSource admin, int rows) throws Exception {
		String table = TableNames.defaults().queue();
		BenchSql.execute(admin, "INSERT INTO " + table + " (queue, business_key, payload, state, attempts, max_attempts, "
				+ "available_at, enqueued_at, finished_at, last_error) SELECT 'queue-' || (g % 5), NULL, 'payload ' || g, "
				+ "CASE WHEN g % 20 = 0 THEN 'DEAD' WHEN g % 20 = 1 THEN 'FAILED' WHEN g % 2 = 0 THEN 'DONE' ELSE 'NEW' END, "
				+ "CASE WHEN g % 20 IN (0, 1) THEN 3 ELSE 0 END, 5, now() + interval '1 day', now() - (g || ' seconds')::interval, "
				+ "CASE WHEN g % 20 <> 0 AND g % 2 = 0 THEN now() ELSE NULL END, "
				+ "CASE WHEN g % 20 IN (0, 1) THEN 'java.net.ConnectException: Connection refused' ELSE NULL END "
				+ "FROM generate_series(1, " + rows + ") g", "ANALYZE " + table);
	}

	private static String counts(DataSource admin) throws Exception {
		StringBuilder text = new StringBuilder("(");
		try (java.sql.Connection connection = admin.getConnection();
				java.sql.ResultSet result = connection.createStatement()
					.executeQuery("SELECT state, COUNT(*) FROM " + TableNames.defaults().queue() + " GROUP BY state ORDER BY state")) {
			while (result.next()) {
				text.append((text.length() > 1) ? ", " : "").append(result.getString(1)).append(' ').append(result.getLong(2));
			}
		}
		return text.append(')').toString();
	}

	private static Map<String, Object> properties(String url) {
		Map<String, Object> p = new LinkedHashMap<>();
		p.put("spring.main.banner-mode", "off");
		p.put("logging.level.root", "WARN");
		p.put("server.port", "0");
		p.put("server.address", "127.0.0.1");
		p.put("spring.datasource.url", url);
		p.put("management.endpoints.web.exposure.include", "console");
		p.put("polling.instance-id", "bench");
		for (int i = 1; i <= 20; i++) {
			p.put("polling.clusters.C" + ((i < 10) ? "0" : "") + i + ".wait-time", "10s");
		}
		p.put("polling.jdbc.initialize-schema", "never");
		p.put("polling.jdbc.queue.enabled", "true");
		p.put("polling.jdbc.delivery.enabled", "true");
		p.put("polling.jdbc.jobs.enabled", "true");
		p.put("polling.console.show-values", "always");
		return p;
	}

	/**
	 * Where a state request's time goes: each section's view and "changes" fingerprint (with the counts shared for a
	 * second, as the endpoint calls them), the queue's counts and one page of dead messages read directly, and the
	 * clusters, called in-process (no HTTP, no JSON).
	 */
	private static void breakdown(ConfigurableApplicationContext context, int rounds) {
		Map<String, List<Double>> times = new LinkedHashMap<>();
		List<dev.polling.console.ConsoleSection> sections = context.getBeanProvider(dev.polling.console.ConsoleSection.class).orderedStream()
			.toList();
		PollingManager manager = context.getBean(PollingManager.class);
		for (int i = 0; i < rounds; i++) {
			for (dev.polling.console.ConsoleSection section : sections) {
				long t0 = System.nanoTime();
				section.view(true);
				times.computeIfAbsent(section.kind() + " view", (k) -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
				t0 = System.nanoTime();
				section.fingerprint();
				times.computeIfAbsent(section.kind() + " fingerprint", (k) -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
			}
			long t0 = System.nanoTime();
			context.getBean(dev.polling.jdbc.queue.WorkQueue.class).admin().stats();
			times.computeIfAbsent("queue counts (uncached)", (k) -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
			t0 = System.nanoTime();
			context.getBean(dev.polling.jdbc.queue.WorkQueue.class).admin()
				.entries(dev.polling.jdbc.queue.QueueQuery.of(dev.polling.jdbc.queue.MessageState.DEAD).withLimit(100));
			times.computeIfAbsent("queue dead page of 100", (k) -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
			t0 = System.nanoTime();
			manager.statuses();
			times.computeIfAbsent("cluster statuses", (k) -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
		}
		StringBuilder line = new StringBuilder("console: in-process medians:");
		times.forEach((what, list) -> {
			Collections.sort(list);
			line.append(String.format(Locale.ROOT, " %s %.2f ms;", what, percentile(list, 0.5)));
		});
		System.out.println(line);
	}

	/** Statements the application runs per second with no page open. */
	private static double backgroundPerSecond(Duration during) throws InterruptedException {
		long before = counting.roundTrips.sum();
		long start = System.nanoTime();
		Thread.sleep(during.toMillis());
		return (counting.roundTrips.sum() - before) / ((System.nanoTime() - start) / 1e9);
	}

	private static Timed timed(String url, int requests, double background, long pauseMillis) throws Exception {
		List<Double> millis = new ArrayList<>(requests);
		long statements = counting.roundTrips.sum();
		long start = System.nanoTime();
		for (int i = 0; i < requests; i++) {
			if (pauseMillis > 0) {
				Thread.sleep(pauseMillis);
			}
			long t0 = System.nanoTime();
			get(url);
			millis.add((System.nanoTime() - t0) / 1e6);
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		double own = (counting.roundTrips.sum() - statements) - background * seconds;
		Collections.sort(millis);
		return new Timed(percentile(millis, 0.5), percentile(millis, 0.9), percentile(millis, 0.99), millis.get(millis.size() - 1),
				Math.max(0, own) / requests);
	}

	/** One minute of what an open page does: changes every 3 s, the state again when the version changed. */
	private static double openPage(String base, Duration during, double background) throws Exception {
		String version = versionOf(get(base + "/api/state"));
		long statements = counting.roundTrips.sum();
		long start = System.nanoTime();
		int reloads = 0;
		while (System.nanoTime() - start < during.toNanos()) {
			String now = versionOf(get(base + "/api/changes"));
			if (!now.equals(version)) {
				get(base + "/api/state");
				version = now;
				reloads++;
			}
			Thread.sleep(3000);
		}
		double minutes = (System.nanoTime() - start) / 60e9;
		double own = (counting.roundTrips.sum() - statements) - background * minutes * 60;
		System.out.printf(Locale.ROOT, "console: one open page for %.1f min: %d state reloads, %.0f statements/min of its own%n", minutes,
				reloads, Math.max(0, own) / minutes);
		return Math.max(0, own) / minutes;
	}

	private static String versionOf(String json) {
		int at = json.indexOf("\"version\":\"");
		return (at < 0) ? "" : json.substring(at + 11, json.indexOf('"', at + 11));
	}

	private static String get(String url) throws Exception {
		HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Accept", "application/json").GET().build(),
				HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
		}
		return response.body();
	}

	private static double percentile(List<Double> sorted, double p) {
		return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
	}

	private static String loadAverage() {
		return String.format(Locale.ROOT, "%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
	}

	private record Timed(double median, double p90, double p99, double max, double statementsPerRequest) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, %.1f statements per request",
					this.median, this.p90, this.p99, this.max, this.statementsPerRequest);
		}

	}

	/** The application: the starter, the console, the database parts; its 20 clusters decided every second. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	static class ConsoleApplication {

		/** Counts the statements of everything that uses the application's data source. */
		@Bean
		static BeanPostProcessor countingDataSource() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (bean instanceof DataSource dataSource && !(bean instanceof CountingDataSource)) {
						CountingDataSource wrapped = new CountingDataSource(dataSource);
						counting = wrapped;
						return wrapped;
					}
					return bean;
				}

			};
		}

		@Bean
		Decider decider(PollingManager manager) {
			return new Decider(manager);
		}

	}

	/** Decides every cluster each second, as the pollers of an application would. */
	static final class Decider {

		private final PollingManager manager;

		Decider(PollingManager manager) {
			this.manager = manager;
		}

		@Scheduled(fixedDelay = 1000)
		void tick() {
			this.manager.clusterIds().forEach((cluster) -> this.manager.runIfGranted(cluster, () -> {
			}));
		}

	}

}
