package dev.polling.console;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import dev.polling.boot.annotation.PollingCycle;
import dev.polling.jdbc.queue.QueueSubscription;

/** The applications the console tests start: real web servers, real JMX connector servers, one cluster ticking each second. */
final class ConsoleApplications {

	static final String CLUSTER = "MAILABRUF_CLUSTER";

	static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConsoleApplications() {
	}

	/** Starts an application; peers (host:port of JMX servers) as A, B, ... */
	static ConfigurableApplicationContext start(Class<?> application, String id, int ownJmxPort, List<Integer> peerPorts,
			String... properties) {
		return start(new Class<?>[] { application }, id, ownJmxPort, peerPorts, properties);
	}

	/** Starts an application made of several configuration classes; peers (host:port of JMX servers) as A, B, ... */
	static ConfigurableApplicationContext start(Class<?>[] sources, String id, int ownJmxPort, List<Integer> peerPorts,
			String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.application.name=console-" + id, "server.port=0",
				"server.address=127.0.0.1", "spring.main.banner-mode=off", "management.endpoints.web.exposure.include=console,polling,health",
				"polling.instance-id=" + id, "polling.jmx.peer-timeout=4s", "polling.jmx.unreachable-peer-policy=presume-last-known",
				"polling.jmx.domain=dev.polling.console.it", "polling.jmx.server.port=" + ownJmxPort,
				"polling.clusters." + CLUSTER + ".name=Mail intake", "polling.clusters." + CLUSTER + ".wait-time=10s",
				"polling.console.show-values=always"));
		char name = 'A';
		for (int port : peerPorts) {
			all.add("polling.jmx.peers." + name + ".host=127.0.0.1");
			all.add("polling.jmx.peers." + name + ".port=" + port);
			name++;
		}
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(sources).properties(all.toArray(String[]::new)).run();
	}

	static String url(ConfigurableApplicationContext context, String path) {
		return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path;
	}

	static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		return HTTP.send(HttpRequest.newBuilder(URI.create(url(context, path))).header("Accept", "application/json").GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static HttpResponse<String> post(ConfigurableApplicationContext context, String path, String json) throws Exception {
		return HTTP.send(HttpRequest.newBuilder(URI.create(url(context, path)))
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** An application without access rules of its own (everything open, as without Spring Security). */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	static class OpenApplication {

		@Bean
		TickCounter tickCounter() {
			return new TickCounter();
		}

		@Bean
		SecurityFilterChain open(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).csrf((csrf) -> csrf.disable()).build();
		}

	}

	/**
	 * An application with Spring Security: everything needs a login (form login), users "viewer"
	 * (role VIEWER) and "operator" (role OPERATOR); the console's action role is set to OPERATOR by the test.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	static class SecuredApplication {

		static final String PASSWORD = "console-test-pw";

		@Bean
		TickCounter tickCounter() {
			return new TickCounter();
		}

		@Bean
		SecurityFilterChain secured(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.formLogin(Customizer.withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/**"))
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("viewer").password("{noop}" + PASSWORD).roles("VIEWER").build(),
					User.withUsername("operator").password("{noop}" + PASSWORD).roles("OPERATOR").build());
		}

	}

	/**
	 * A second cluster whose cycles a test can hold open: each cycle waits at a gate (open unless a test
	 * closes it). Every start and end of a cycle body, of every instance in this JVM, goes to one log in
	 * order, so a test sees whether two cycles ever ran at the same time.
	 */
	static class LongCycle {

		static final String CLUSTER = "LONG_CYCLE";

		static final List<String> EVENTS = java.util.Collections.synchronizedList(new ArrayList<>());

		private final String id;

		private volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);

		private final AtomicInteger started = new AtomicInteger();

		private final java.util.concurrent.atomic.AtomicBoolean waiting = new java.util.concurrent.atomic.AtomicBoolean();

		LongCycle(org.springframework.core.env.Environment environment) {
			this.id = environment.getProperty("polling.instance-id");
		}

		@Scheduled(fixedDelay = 300)
		@PollingCycle(CLUSTER)
		void poll() throws InterruptedException {
			this.started.incrementAndGet();
			EVENTS.add(this.id + " start");
			try {
				this.waiting.set(true);
				if (!this.gate.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
					throw new IllegalStateException("the test never opened the gate");
				}
			}
			finally {
				this.waiting.set(false);
				EVENTS.add(this.id + " end");
			}
		}

		/** Its next cycles wait until {@link #open()}. */
		void close() {
			this.gate = new java.util.concurrent.CountDownLatch(1);
		}

		void open() {
			this.gate.countDown();
		}

		/** Cycles started here (a method: the bean is a proxy). */
		int started() {
			return this.started.get();
		}

		boolean waitingAtTheGate() {
			return this.waiting.get() && this.gate.getCount() > 0;
		}

		/** The most cycle bodies that ran at the same time, over the whole log. */
		static int mostAtOnce() {
			int running = 0;
			int most = 0;
			synchronized (EVENTS) {
				for (String event : EVENTS) {
					running += event.endsWith(" start") ? 1 : -1;
					most = Math.max(most, running);
				}
			}
			return most;
		}

		@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
		static class Config {

			@Bean
			LongCycle longCycle(org.springframework.core.env.Environment environment) {
				return new LongCycle(environment);
			}

		}

	}

	/** Ticks every second; polls only while granted. */
	static class TickCounter {

		final AtomicInteger cycles = new AtomicInteger();

		@Scheduled(fixedDelay = 1000)
		@PollingCycle(CLUSTER)
		void poll() {
			this.cycles.incrementAndGet();
		}

	}


	/**
	 * The work queue's subscription to queue "invoices", which fails while {@link #failing} is set
	 * and counts what it processed; an application of a test extends it.
	 */
	abstract static class InvoicesQueue {

		final AtomicBoolean failing = new AtomicBoolean(true);

		final AtomicInteger processed = new AtomicInteger();

		@Bean
		QueueSubscription invoices() {
			return QueueSubscription.of("invoices", (message) -> {
				if (this.failing.get()) {
					throw new IllegalStateException("invoice service down");
				}
				this.processed.incrementAndGet();
			});
		}

	}

}
