package dev.polling.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

import jakarta.mail.FetchProfile;
import jakarta.mail.Folder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Store;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.polling.jdbc.inbox.InboxKeys;
import dev.polling.e2e.DemoReport.FollowUp;
import dev.polling.e2e.DemoReport.Order;
import dev.polling.e2e.DemoReport.Takeover;

/**
 * The demo behind the README's first command ({@code ./demo.sh}): starts the mail server
 * ({@link DemoMailServer}) and three instances of the sample app as processes of their own, hands
 * clusters over (the endpoint's state change) until each instance holds one, sends mails spread
 * over the three mailboxes, prints every few seconds which instance holds which cluster (from each
 * instance's {@code /actuator/polling}), kills the holder of {@code MAILBOX_1} with SIGKILL a third
 * of the way through and restarts it two thirds through, waits until every mail is processed,
 * stops everything and prints a summary read from the shared database ({@link DemoReport}). Its
 * last line is {@code demo: OK sent=N processed=N lost=0 duplicate-rows=0} (exit code 0) or
 * {@code demo: FAILED ...} (exit code 1).
 * <p>
 * Settings (system properties, or the environment variables in brackets): {@code demo.mails}
 * ({@code DEMO_MAILS}, default 300, or the first argument), {@code demo.send-seconds}
 * ({@code DEMO_SEND_SECONDS}, default 36: how long sending takes), {@code demo.work}
 * (default {@code demo-work}), {@code demo.sample-jar} and {@code demo.instance-jar} (the jars the
 * instances run from, {@link Jars}; {@code ./demo.sh} sets both). All ports are free ones chosen
 * at start. The driver opens the H2
 * database first, so it serves the file to the instances (H2 AUTO_SERVER): killing an instance
 * does not take the database with it, as with a database server of its own.
 */
public final class DemoDriver {

	/** The mailbox clusters, which the instances spread among themselves. */
	static final List<String> CLUSTERS = List.of("MAILBOX_1", "MAILBOX_2", "MAILBOX_3");

	/** The cluster whose holder dispatches the follow-up jobs (coordinated through the database). */
	static final String JOBS_CLUSTER = "FOLLOW_UPS";

	/** Every cluster the demo shows. */
	static final List<String> ALL_CLUSTERS = List.of("MAILBOX_1", "MAILBOX_2", "MAILBOX_3", JOBS_CLUSTER);

	static final List<String> MAILBOX_USERS = List.of("mailbox-1", "mailbox-2", "mailbox-3");

	/** How many customers send the orders; each gets the confirmations of its orders. */
	static final int CUSTOMERS = 17;

	/** The follow-up delay of the sample app (sample.follow-up-delay), which the demo waits for. */
	static final Duration FOLLOW_UP_DELAY = Duration.ofSeconds(30);

	/** How long after the last order the demo waits for its confirmation and follow-up check. */
	private static final Duration FOLLOW_UP_TIMEOUT = FOLLOW_UP_DELAY.plusSeconds(60);

	private static final String MAIL_PASSWORD = "secret";

	/**
	 * The header naming the order a confirmation confirms: the sample's
	 * {@code ConfirmationSender.CONFIRMS_HEADER} (this module does not compile against the sample;
	 * with another name no confirmation would be found and the demo would fail).
	 */
	static final String CONFIRMS_HEADER = "X-Confirms";

	private static final String LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(150);

	private static final Duration TAKEOVER_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(90);

	private final int mails;

	private final Duration sendDuration;

	final Path work;

	final String java;

	final Jars jars;

	private final long startNanos = System.nanoTime();

	/** Further command-line arguments of every instance (the chaos run sets the unreachable-peer policy). */
	final List<String> instanceArguments = new ArrayList<>();

	/**
	 * Peer entries beyond the three instances, in the shared peer list from the start (the chaos run
	 * starts a fourth process there for a while); nobody listens on their ports until then.
	 */
	int extraPeerSlots;

	/** HTTP and JMX port of every peer entry, instance-1 first; set by {@link #startInstances()}. */
	final List<int[]> slotPorts = new ArrayList<>();

	private @Nullable Path sharedConfiguration;

	/**
	 * More YAML for the shared configuration, given every peer entry's HTTP and JMX port; appended
	 * right after the peer entries, so it may add peers (indented by four) and continue {@code polling}.
	 */
	@Nullable Function<List<int[]>, String> configurationAddition;

	final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	final JsonMapper json = JsonMapper.builder().build();

	final List<Instance> instances = new ArrayList<>();

	final ConcurrentLinkedQueue<String> sentKeys = new ConcurrentLinkedQueue<>();

	private final List<Takeover> takeovers = new ArrayList<>();

	private int doubleHolderSamples;

	/** What the demo did as an operator with in-doubt confirmations, one line each. */
	private final List<String> inDoubtResolutions = new ArrayList<>();

	int smtpPort;

	int imapPort;

	private @Nullable DemoProcess mailServer;

	@Nullable Connection database;

	private boolean stopped;

	DemoDriver(int mails, Duration sendDuration, Path work, String java, Jars jars) {
		this.mails = mails;
		this.sendDuration = sendDuration;
		this.work = work.toAbsolutePath().normalize();
		this.java = java;
		this.jars = jars;
	}

	/**
	 * The jars the driver starts processes from.
	 * @param driver this module's executable jar, which the mail server runs from (GreenMail is in it)
	 * @param sample the sample app's executable jar, which every instance runs from
	 * @param instance this module's jar of additions to an instance ({@code dev.polling.e2e.instance}:
	 * the watchdog, and the tick clusters of profile {@code chaos}), put on the instance's class path
	 * with the Spring Boot launcher's {@code loader.path}
	 */
	record Jars(String driver, String sample, String instance) {

		/**
		 * From the system properties {@code demo.sample-jar} and {@code demo.instance-jar} (paths,
		 * default the Maven build's, relative to the working directory); the driver's jar is its class path.
		 * @return the jars, each an existing file
		 * @throws IllegalArgumentException naming the property, its value and the build that makes the file
		 */
		static Jars fromSystemProperties() {
			return new Jars(Path.of(System.getProperty("java.class.path")).toAbsolutePath().normalize().toString(),
					existing("demo.sample-jar", "polling-sample-app/target/polling-sample-app-0.1.0-SNAPSHOT.jar", "polling-sample-app"),
					existing("demo.instance-jar", "polling-e2e/target/polling-e2e-0.1.0-SNAPSHOT-instance.jar", "polling-e2e"));
		}

		private static String existing(String property, String defaultPath, String module) {
			String value = System.getProperty(property, defaultPath);
			Path path = Path.of(value).toAbsolutePath().normalize();
			if (!Files.isRegularFile(path)) {
				throw new IllegalArgumentException(property + "=" + value + ": no such file (" + path + "); build it with"
						+ " ./mvnw -B -q -DskipTests -pl " + module + " -am package, or set -D" + property + " to the jar");
			}
			return path.toString();
		}

	}

	public static void main(String[] args) {
		int mails = Integer.parseInt((args.length > 0) ? args[0] : setting("demo.mails", "DEMO_MAILS", "300"));
		if (mails < 3) {
			System.err.println("demo: send at least 3 mails (one per mailbox), not " + mails);
			System.exit(2);
		}
		Duration sendDuration = Duration.ofSeconds(Long.parseLong(setting("demo.send-seconds", "DEMO_SEND_SECONDS", "36")));
		Jars jars = jarsOrExit("demo");
		String java = ProcessHandle.current().info().command().orElse("java");
		DemoDriver driver = new DemoDriver(mails, sendDuration, Path.of(System.getProperty("demo.work", "demo-work")), java, jars);
		Runtime.getRuntime().addShutdownHook(new Thread(driver::stopAll, "demo-shutdown"));
		DemoReport report;
		try {
			report = driver.run();
		}
		catch (Exception ex) {
			report = driver.report(describe(ex));
		}
		driver.stopAll();
		System.out.println();
		System.out.println("demo: summary");
		report.summary().forEach(System.out::println);
		System.out.println(report.lastLine());
		System.out.flush();
		System.exit(report.ok() ? 0 : 1);
	}

	/** The jars from the system properties, or the exit with code 2 and the error on stderr. */
	static Jars jarsOrExit(String name) {
		try {
			return Jars.fromSystemProperties();
		}
		catch (IllegalArgumentException ex) {
			System.err.println(name + ": " + ex.getMessage());
			System.exit(2);
			throw ex;
		}
	}

	int mailCount() {
		return this.mails;
	}

	DemoReport run() throws Exception {
		prepareWorkDirectory();
		say("%d mails over %d mailboxes, 3 instances; logs in %s", this.mails, CLUSTERS.size(), this.work.resolve("logs"));
		startAll();

		Sender sender = new Sender();
		Thread sending = new Thread(sender, "demo-sender");
		sending.setDaemon(true);
		sending.start();
		say("sending %d mails over %d s (mail i goes to mailbox-((i-1) mod 3)+1)", this.mails, this.sendDuration.toSeconds());

		Instance victim = null;
		long killedAt = 0;
		Map<String, String> awaitingTakeover = new LinkedHashMap<>();
		boolean restarted = false;
		boolean restartedUp = false;
		long restartedAt = 0;
		long lastPrint = 0;
		long drainDeadline = 0;
		String failure = null;
		while (true) {
			if (sender.failure != null) {
				throw new IllegalStateException("sending mail failed: " + describe(sender.failure));
			}
			for (Instance instance : this.instances) {
				if (instance != victim && !instance.process.isAlive()) {
					throw new IllegalStateException(instance.id + " ended unexpectedly; see " + instance.process.log());
				}
			}
			Map<String, List<String>> holders = holders();
			long now = System.nanoTime();

			if (victim != null && !awaitingTakeover.isEmpty()) {
				for (var iterator = awaitingTakeover.entrySet().iterator(); iterator.hasNext();) {
					var entry = iterator.next();
					List<String> held = holders.get(entry.getKey());
					if (!held.isEmpty()) {
						Duration after = Duration.ofNanos(now - killedAt);
						this.takeovers.add(new Takeover(entry.getKey(), entry.getValue(), held.get(0), after));
						say("takeover: %s now held by %s, %.1f s after the SIGKILL", entry.getKey(), held.get(0),
								after.toMillis() / 1000.0);
						iterator.remove();
					}
					else if (now - killedAt > TAKEOVER_TIMEOUT.toNanos()) {
						this.takeovers.add(new Takeover(entry.getKey(), entry.getValue(), null, null));
						say("takeover: %s NOT taken over within %d s", entry.getKey(), TAKEOVER_TIMEOUT.toSeconds());
						iterator.remove();
					}
				}
			}
			if (victim == null && sender.sent.get() >= this.mails / 3) {
				victim = holderOf(holders, "MAILBOX_1");
				for (String cluster : ALL_CLUSTERS) {
					if (holders.get(cluster).contains(victim.id)) {
						awaitingTakeover.put(cluster, victim.id);
					}
				}
				victim.process.kill();
				killedAt = System.nanoTime();
				say("SIGKILL %s (pid %d), holder of %s, %d of %d mails sent", victim.id, victim.process.pid(),
						String.join(", ", awaitingTakeover.keySet()), sender.sent.get(), this.mails);
			}
			if (victim != null && awaitingTakeover.isEmpty() && !restarted
					&& (sender.sent.get() >= 2 * this.mails / 3 || sender.done) && now - killedAt > 5_000_000_000L) {
				victim.process.start();
				restarted = true;
				restartedAt = System.nanoTime();
				say("restarting %s (same ports, same configuration)", victim.id);
			}
			if (restarted && !restartedUp && victim != null && healthy(victim)) {
				restartedUp = true;
				say("%s is up again after %.1f s and joins as standby", victim.id,
						(System.nanoTime() - restartedAt) / 1e9);
			}
			if (now - lastPrint >= 3_000_000_000L) {
				lastPrint = now;
				printStatus(holders, sender.sent.get(), processedCount());
			}
			if (sender.done) {
				if (drainDeadline == 0) {
					drainDeadline = now + DRAIN_TIMEOUT.toNanos();
					say("all %d mails sent; waiting until they are processed", this.mails);
				}
				if (restartedUp && awaitingTakeover.isEmpty() && processedCount() >= this.mails) {
					printStatus(holders, sender.sent.get(), processedCount());
					say("all mails processed; waiting for their confirmations and for the follow-up checks (due %d s after each order)",
							FOLLOW_UP_DELAY.toSeconds());
					break;
				}
				if (now > drainDeadline) {
					failure = "gave up waiting " + DRAIN_TIMEOUT.toSeconds() + " s for the mails to be processed"
							+ (restartedUp ? "" : " and for the restarted instance");
					say(failure);
					break;
				}
			}
			Thread.sleep(awaitingTakeover.isEmpty() ? 250 : 50);
		}
		if (failure == null) {
			failure = awaitConfirmationsAndFollowUps(() -> printStatus(holders(), sender.sent.get(), processedCount()));
		}
		awaitMailboxesEmpty();
		return report(failure);
	}

	/**
	 * Waits until every order has its confirmation at the mail server and its follow-up check in the
	 * database. Acts as the operator on in-doubt confirmations (a send cut off by the SIGKILL): one
	 * found at the mail server is resolved as delivered, one not found is sent again.
	 * @return null, or why the demo gave up
	 */
	@Nullable String awaitConfirmationsAndFollowUps(Runnable status) throws InterruptedException {
		long deadline = System.nanoTime() + FOLLOW_UP_TIMEOUT.toNanos();
		long lastPrint = 0;
		while (true) {
			resolveInDoubtConfirmations();
			int processed = processedCount();
			int confirmed = confirmationKeysAtServer().map((keys) -> (int) keys.stream().distinct().count()).orElse(-1);
			int checked = followUpCount();
			long now = System.nanoTime();
			boolean done = confirmed >= processed && checked >= processed;
			if (done || now - lastPrint >= 3_000_000_000L) {
				lastPrint = now;
				status.run();
			}
			if (done) {
				say("all %d orders confirmed at the mail server and followed up", processed);
				return null;
			}
			if (now > deadline) {
				String failure = String.format(Locale.ROOT,
						"gave up waiting %d s for the confirmations (%d of %d) and follow-up checks (%d of %d)",
						FOLLOW_UP_TIMEOUT.toSeconds(), confirmed, processed, checked, processed);
				say(failure);
				return failure;
			}
			Thread.sleep(1000);
		}
	}

	/**
	 * The operator's part: reads the in-doubt confirmations from a live instance's
	 * {@code /actuator/pollingdelivery}, looks for each at the mail server, and resolves it with the
	 * endpoint's write operation ({@code delivered} or {@code resend}).
	 */
	private void resolveInDoubtConfirmations() throws InterruptedException {
		Instance instance = this.instances.stream().filter(this::healthy).findFirst().orElse(null);
		if (instance == null) {
			return;
		}
		InDoubtOperator operator = new InDoubtOperator(this.http, "http://127.0.0.1:" + instance.httpPort);
		// idempotency key "confirmation:<order key>"; the mail at the server names the order key. The
		// mailboxes are read once per round, at the first in-doubt message, not once per message.
		List<List<String>> atServer = new ArrayList<>(1);
		List<String> done = operator.resolveAll((key) -> {
			if (atServer.isEmpty()) {
				atServer.add(confirmationKeysAtServer()
					.orElseThrow(() -> new IllegalStateException("the mail server cannot be asked about " + key)));
			}
			return atServer.get(0).contains(key.substring(key.indexOf(':') + 1));
		});
		for (String line : done) {
			this.inDoubtResolutions.add(line);
			say("operator: %s", line);
		}
	}

	// ---- setup ----

	void prepareWorkDirectory() throws IOException {
		Files.createDirectories(this.work);
		for (String dir : List.of("db", "logs")) {
			Path path = this.work.resolve(dir);
			if (Files.exists(path)) {
				try (Stream<Path> files = Files.walk(path)) {
					files.sorted(Comparator.reverseOrder()).forEach((file) -> {
						try {
							Files.delete(file);
						}
						catch (IOException ex) {
							throw new UncheckedIOException(ex);
						}
					});
				}
			}
			Files.createDirectories(path);
		}
	}

	/**
	 * The mail server, the database and the three instances, each mailbox cluster held by one of
	 * them (the demo, the chaos run and the soak begin so).
	 */
	void startAll() throws Exception {
		startMailServer();
		openDatabase();
		startInstances();
		awaitAllClustersHeld();
		distribute();
	}

	void startMailServer() throws Exception {
		this.smtpPort = freePort();
		this.imapPort = freePort();
		List<String> command = new ArrayList<>(List.of(this.java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
				"-Dloader.main=" + DemoMailServer.class.getName(), "-cp", this.jars.driver(), LAUNCHER,
				Integer.toString(this.smtpPort), Integer.toString(this.imapPort), MAIL_PASSWORD));
		command.addAll(MAILBOX_USERS);
		command.addAll(customers());
		DemoProcess server = new DemoProcess("mail-server", command, this.work.resolve("logs/mail-server.log"));
		this.mailServer = server;
		server.start();
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!(accepts(this.smtpPort) && accepts(this.imapPort))) {
			if (!server.isAlive()) {
				throw new IllegalStateException("the mail server did not start; see " + server.log());
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the mail server did not open its ports within 60 s; see " + server.log());
			}
			Thread.sleep(200);
		}
		say("mail server up (GreenMail, pid %d): SMTP 127.0.0.1:%d, IMAP 127.0.0.1:%d, users %s and customer-1..%d",
				server.pid(), this.smtpPort, this.imapPort, String.join(", ", MAILBOX_USERS), CUSTOMERS);
	}

	static List<String> customers() {
		List<String> customers = new ArrayList<>();
		for (int i = 1; i <= CUSTOMERS; i++) {
			customers.add("customer-" + i);
		}
		return customers;
	}

	private String databaseUrl() {
		return "jdbc:h2:file:" + this.work.resolve("db/orders") + ";AUTO_SERVER=TRUE";
	}

	void openDatabase() throws SQLException {
		this.database = DriverManager.getConnection(databaseUrl(), "sa", "");
		say("database: %s (this driver opened it first and serves it to the instances)", databaseUrl());
	}

	void startInstances() throws Exception {
		List<int[]> ports = this.slotPorts;
		for (int i = 1; i <= 3 + this.extraPeerSlots; i++) {
			ports.add(new int[] { freePort(), freePort() });
		}
		Path shared = writeSharedConfiguration(ports);
		this.sharedConfiguration = shared;
		for (int i = 1; i <= 3; i++) {
			Instance instance = instance("instance-" + i, "instance-" + i, i, List.of());
			this.instances.add(instance);
			instance.process.start();
		}
		say("starting %s with the shared configuration %s", this.instances.stream()
			.map((i) -> i.id + " (http " + i.httpPort + ", jmx " + i.jmxPort + ")")
			.toList(), shared);
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		List<Instance> waiting = new ArrayList<>(this.instances);
		while (!waiting.isEmpty()) {
			for (var iterator = waiting.iterator(); iterator.hasNext();) {
				Instance instance = iterator.next();
				if (!instance.process.isAlive()) {
					throw new IllegalStateException(instance.id + " did not start; see " + instance.process.log());
				}
				if (healthy(instance)) {
					say("%s up (pid %d), its console: http://127.0.0.1:%d/actuator/console", instance.id, instance.process.pid(),
							instance.httpPort);
					iterator.remove();
				}
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("not up within " + STARTUP_TIMEOUT.toSeconds() + " s: "
						+ waiting.stream().map((i) -> i.id).toList());
			}
			Thread.sleep(250);
		}
	}

	/**
	 * An instance process (not started) in a peer slot of the shared configuration.
	 * @param label how the demo names it (its log file too)
	 * @param instanceId its {@code polling.instance-id}
	 * @param slot the peer entry whose ports it uses, from 1
	 * @param arguments further command-line arguments, after the common ones
	 */
	Instance instance(String label, String instanceId, int slot, List<String> arguments) {
		if (this.sharedConfiguration == null || slot < 1 || slot > this.slotPorts.size()) {
			throw new IllegalStateException("no peer slot " + slot);
		}
		int httpPort = this.slotPorts.get(slot - 1)[0];
		int jmxPort = this.slotPorts.get(slot - 1)[1];
		List<String> command = new ArrayList<>(List.of(this.java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
				"-Dloader.path=" + this.jars.instance(), "-cp", this.jars.sample(), LAUNCHER,
				"--spring.config.additional-location=file:" + this.sharedConfiguration, "--server.port=" + httpPort,
				"--polling.jmx.server.port=" + jmxPort, "--polling.instance-id=" + instanceId));
		command.addAll(this.instanceArguments);
		command.addAll(arguments);
		return new Instance(label, httpPort, jmxPort, new DemoProcess(label, command, this.work.resolve("logs/" + label + ".log")));
	}

	private Path writeSharedConfiguration(List<int[]> ports) throws IOException {
		StringBuilder yaml = new StringBuilder();
		yaml.append("# Written by the demo: the configuration the instances share. Each instance gets only\n")
			.append("# its own --server.port, --polling.jmx.server.port and --polling.instance-id.\n")
			.append("spring:\n  datasource:\n    url: \"").append(databaseUrl().replace("\\", "\\\\").replace("\"", "\\\""))
			.append("\"\n")
			.append("e2e:\n  exit-with-parent: true   # an instance ends when the demo driver ends (dev.polling.e2e.instance)\n")
			.append("sample:\n  follow-up-delay: ").append(FOLLOW_UP_DELAY.toSeconds()).append("s   # the demo waits for them\n")
			.append("  mail:\n    imap-port: ").append(this.imapPort).append('\n')
			.append("    smtp-port: ").append(this.smtpPort).append("   # the confirmations\n")
			.append("    processing-time: 20ms   # simulated business work per mail\n")
			.append("management:\n  endpoint:\n    polling:\n      access: unrestricted   # the demo hands clusters over (state paused/active)\n")
			.append("    pollingdelivery:\n      access: unrestricted   # the demo resolves in-doubt confirmations\n")
			.append("polling:\n  peers:   # all instances share one list; each recognises itself in it\n");
		for (int i = 1; i <= ports.size(); i++) {
			yaml.append("    instance-").append(i).append(":\n      host: 127.0.0.1\n      port: ")
				.append(ports.get(i - 1)[1]).append('\n');
		}
		if (this.configurationAddition != null) {
			yaml.append(this.configurationAddition.apply(ports));
		}
		Path file = this.work.resolve("demo-instances.yml");
		Files.writeString(file, yaml.toString(), StandardCharsets.UTF_8);
		return file;
	}

	void awaitAllClustersHeld() throws InterruptedException {
		printStatus(holdersOnceTrue(DemoDriver::allMailboxesHeld, 200), 0, processedCount());
	}

	/** The holders, read every so many milliseconds until the condition holds of them or 30 s have passed; the last read. */
	private Map<String, List<String>> holdersOnceTrue(Predicate<Map<String, List<String>>> condition, long pauseMillis)
			throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		Map<String, List<String>> holders = holders();
		while (!condition.test(holders) && System.nanoTime() < deadline) {
			Thread.sleep(pauseMillis);
			holders = holders();
		}
		return holders;
	}

	/**
	 * One cluster per instance, as seed 001 §4.1.1 intends: whichever instance comes up first takes
	 * every cluster; with {@code polling.jmx.balance-clusters} it hands surplus clusters over by itself
	 * (one per half wait time). The demo waits for that, and only if it has not happened after 30 s
	 * hands them over with the endpoint's write operation, as an operator would.
	 */
	void distribute() throws InterruptedException {
		Map<String, List<String>> holders = holdersOnceTrue(this::balanced, 250);
		if (balanced(holders)) {
			say("balanced by the instances themselves (polling.jmx.balance-clusters): %s", holders);
			return;
		}
		handOverByHand();
	}

	private static boolean allMailboxesHeld(Map<String, List<String>> holders) {
		return CLUSTERS.stream().noneMatch((cluster) -> holders.get(cluster).isEmpty());
	}

	/** Each mailbox cluster has one holder, and no instance holds two of them (FOLLOW_UPS does not count). */
	private boolean balanced(Map<String, List<String>> holders) {
		return CLUSTERS.stream().allMatch((cluster) -> holders.get(cluster).size() == 1)
				&& this.instances.stream().allMatch((i) -> clustersHeldBy(holders, i.id) <= 1);
	}

	/**
	 * Pauses a surplus cluster on every instance but the target (the holder releases it, the others
	 * stop competing), waits until the target holds it, and resumes it everywhere.
	 */
	private void handOverByHand() throws InterruptedException {
		Map<String, List<String>> holders = holders();
		for (String cluster : CLUSTERS) {
			List<String> held = holders.get(cluster);
			if (held.size() != 1 || clustersHeldBy(holders, held.get(0)) < 2) {
				continue;
			}
			Optional<Instance> target = this.instances.stream()
				.filter((i) -> clustersHeldBy(holders(), i.id) == 0)
				.findFirst();
			if (target.isEmpty()) {
				break;
			}
			String from = held.get(0);
			List<Instance> others = this.instances.stream().filter((i) -> i != target.get()).toList();
			others.forEach((i) -> post(i, "/actuator/polling/" + cluster, "{\"state\":\"paused\"}"));
			long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			while (!holders().get(cluster).contains(target.get().id) && System.nanoTime() < deadline) {
				Thread.sleep(100);
			}
			others.forEach((i) -> post(i, "/actuator/polling/" + cluster, "{\"state\":\"active\"}"));
			holders = holders();
			say("handover: %s from %s to %s (POST /actuator/polling/%s {\"state\":\"paused\"} on the others, then active)%s", cluster,
					from, target.get().id, cluster, holders.get(cluster).contains(target.get().id) ? "" : " FAILED");
		}
		printStatus(holders, 0, processedCount());
	}

	/** How many mailbox clusters the instance holds. */
	private static int clustersHeldBy(Map<String, List<String>> holders, String instanceId) {
		return (int) CLUSTERS.stream().filter((cluster) -> holders.get(cluster).contains(instanceId)).count();
	}

	private void post(Instance instance, String path, String json) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort + path))
			.timeout(Duration.ofSeconds(2))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				say("POST %s on %s answered %d", path, instance.id, response.statusCode());
			}
		}
		catch (IOException ex) {
			say("POST %s on %s failed: %s", path, instance.id, describe(ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	// ---- observation ----

	/** Per cluster, the live instances whose {@code /actuator/polling} says they hold it. */
	Map<String, List<String>> holders() {
		Map<String, List<String>> holders = new LinkedHashMap<>();
		ALL_CLUSTERS.forEach((cluster) -> holders.put(cluster, new ArrayList<>()));
		for (Instance instance : this.instances) {
			if (!instance.process.isAlive()) {
				continue;
			}
			JsonNode status = pollingStatus(instance);
			if (status == null) {
				continue;
			}
			for (String cluster : ALL_CLUSTERS) {
				if (status.path("clusters").path(cluster).path("holding").asBoolean(false)) {
					holders.get(cluster).add(instance.id);
				}
			}
		}
		if (holders.values().stream().anyMatch((list) -> list.size() > 1)) {
			this.doubleHolderSamples++;
		}
		return holders;
	}

	private @Nullable JsonNode pollingStatus(Instance instance) {
		Optional<String> body = get(instance, "/actuator/polling");
		if (body.isEmpty()) {
			return null;
		}
		try {
			return this.json.readTree(body.get());
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	boolean healthy(Instance instance) {
		return instance.process.isAlive() && get(instance, "/actuator/health").isPresent();
	}

	Optional<String> get(Instance instance, String path) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort + path))
			.timeout(Duration.ofSeconds(2))
			.build();
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == 200) ? Optional.of(response.body()) : Optional.empty();
		}
		catch (IOException ex) {
			return Optional.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
	}

	private Instance holderOf(Map<String, List<String>> holders, String preferred) {
		List<String> candidates = new ArrayList<>(holders.get(preferred));
		holders.values().forEach(candidates::addAll);
		if (candidates.isEmpty()) {
			throw new IllegalStateException("no instance holds any cluster: nothing to kill");
		}
		String id = candidates.get(0);
		return this.instances.stream().filter((i) -> i.id.equals(id)).findFirst().orElseThrow();
	}

	private void printStatus(Map<String, List<String>> holders, int sent, int processed) {
		StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
				"sent %4d/%d  processed %4d  confirmed %4d  followed up %4d  |", sent, this.mails, Math.max(processed, 0),
				Math.max(confirmedCount(), 0), Math.max(followUpCount(), 0)));
		holders.forEach((cluster, ids) -> line.append(' ').append(cluster).append(": ")
			.append(ids.isEmpty() ? "-" : String.join("+", ids)).append(ids.size() > 1 ? " (TWO HOLDERS!)" : "")
			.append("  |"));
		List<String> down = this.instances.stream().filter((i) -> !i.process.isAlive()).map((i) -> i.id).toList();
		if (!down.isEmpty()) {
			line.append(" down: ").append(String.join(", ", down));
		}
		say("%s", line);
	}

	int processedCount() {
		return queryInt("SELECT COUNT(DISTINCT message_id) FROM orders");
	}

	/** Confirmations the delivery guard recorded as delivered (the report counts them at the mail server). */
	private int confirmedCount() {
		return queryInt("SELECT COUNT(*) FROM polling_delivery WHERE destination = 'confirmations' AND state = 'DELIVERED'");
	}

	private int followUpCount() {
		return queryInt("SELECT COUNT(DISTINCT message_id) FROM follow_up_checks");
	}

	private int queryInt(String sql) {
		Connection connection = this.database;
		if (connection == null) {
			return -1;
		}
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			return result.next() ? result.getInt(1) : 0;
		}
		catch (SQLException ex) {
			return -1; // tables not created yet
		}
	}

	void awaitMailboxesEmpty() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
		while (mailsOnServer() != 0 && System.nanoTime() < deadline) {
			Thread.sleep(500);
		}
	}

	/** Mails still in the three mailboxes, or -1 if the server cannot be asked. */
	private int mailsOnServer() {
		int[] total = { 0 };
		return readMailboxes(MAILBOX_USERS, (folder) -> total[0] += folder.getMessageCount()) ? total[0] : -1;
	}

	/**
	 * The order keys the confirmation mails in the customers' mailboxes confirm (header
	 * {@code X-Confirms}), one entry per mail; empty if the server cannot be asked.
	 */
	Optional<List<String>> confirmationKeysAtServer() {
		List<String> keys = new ArrayList<>();
		boolean read = readMailboxes(customers(), (folder) -> {
			Message[] all = folder.getMessages();
			FetchProfile profile = new FetchProfile();
			profile.add(CONFIRMS_HEADER);
			folder.fetch(all, profile);
			for (Message message : all) {
				String[] confirms = message.getHeader(CONFIRMS_HEADER);
				if (confirms != null && confirms.length > 0) {
					keys.add(confirms[0]);
				}
			}
		});
		return read ? Optional.of(keys) : Optional.empty();
	}

	/** Opens each user's INBOX read-only over IMAP and hands it to the reader; false if the server cannot be asked. */
	private boolean readMailboxes(List<String> users, FolderReader reader) {
		Properties properties = new Properties();
		properties.put("mail.imap.connectiontimeout", "3000");
		properties.put("mail.imap.timeout", "5000");
		Session session = Session.getInstance(properties);
		for (String user : users) {
			try {
				Store store = session.getStore("imap");
				store.connect("127.0.0.1", this.imapPort, user, MAIL_PASSWORD);
				try {
					Folder folder = store.getFolder("INBOX");
					folder.open(Folder.READ_ONLY);
					reader.read(folder);
					folder.close(false);
				}
				finally {
					store.close();
				}
			}
			catch (MessagingException ex) {
				return false;
			}
		}
		return true;
	}

	@FunctionalInterface
	private interface FolderReader {

		void read(Folder folder) throws MessagingException;

	}

	DemoReport report(@Nullable String failure) {
		List<Order> orders = new ArrayList<>();
		List<FollowUp> followUps = new ArrayList<>();
		int duplicateFetches = 0;
		String problem = failure;
		Connection connection = this.database;
		if (connection != null) {
			try (Statement statement = connection.createStatement()) {
				try (ResultSet result = statement.executeQuery("SELECT message_id, processed_by FROM orders")) {
					while (result.next()) {
						orders.add(new Order(result.getString(1), result.getString(2)));
					}
				}
				try (ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM duplicate_fetches")) {
					duplicateFetches = result.next() ? result.getInt(1) : 0;
				}
				// from the order (processed_at) to its check: the follow-up delay plus the start delay
				try (ResultSet result = statement.executeQuery("SELECT f.message_id, "
						+ "(SELECT DATEDIFF('MILLISECOND', MIN(o.processed_at), f.checked_at) FROM orders o "
						+ "WHERE o.message_id = f.message_id) FROM follow_up_checks f")) {
					while (result.next()) {
						long millis = result.getLong(2);
						followUps.add(new FollowUp(result.getString(1), result.wasNull() ? null : Duration.ofMillis(millis)));
					}
				}
			}
			catch (SQLException ex) {
				problem = (problem != null) ? problem : "could not read the database: " + ex.getMessage();
			}
		}
		boolean serverUp = this.mailServer != null && this.mailServer.isAlive();
		int left = serverUp ? mailsOnServer() : -1;
		List<String> confirmations = serverUp ? confirmationKeysAtServer().orElse(null) : null;
		return DemoReport.of(List.copyOf(this.sentKeys), orders, duplicateFetches, left, confirmations,
				List.copyOf(this.inDoubtResolutions), followUps, this.takeovers, this.doubleHolderSamples, problem);
	}

	// ---- shutdown ----

	/** Stops the instances (SIGTERM, then SIGKILL) and the mail server; idempotent. */
	synchronized void stopAll() {
		if (this.stopped) {
			return;
		}
		this.stopped = true;
		say("stopping the instances and the mail server");
		try {
			for (Instance instance : this.instances) {
				instance.process.requestStop();
			}
			for (Instance instance : this.instances) {
				instance.process.stop(20_000);
			}
			if (this.mailServer != null) {
				this.mailServer.stop(10_000);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			if (this.database != null) {
				try {
					this.database.close();
				}
				catch (SQLException ex) {
					// the summary was read before; nothing to do
				}
			}
		}
		long left = this.instances.stream().filter((i) -> i.process.isAlive()).count()
				+ ((this.mailServer != null && this.mailServer.isAlive()) ? 1 : 0);
		say("stopped (%d processes of the demo still running)", left);
	}

	// ---- helpers ----

	void say(String format, Object... args) {
		double seconds = (System.nanoTime() - this.startNanos) / 1e9;
		System.out.println(String.format(Locale.ROOT, "[%6.1fs] ", seconds) + String.format(Locale.ROOT, format, args));
		System.out.flush();
	}

	/** The machine's one-minute load average ({@code /proc/loadavg}), or -1 where there is none (not Linux). */
	static double loadAverage() {
		try {
			return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	private static String setting(String property, String environment, String fallback) {
		String value = System.getProperty(property);
		if (value == null) {
			value = System.getenv(environment);
		}
		return (value == null || value.isBlank()) ? fallback : value.strip();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(false);
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (ConnectException ex) {
			return false;
		}
		catch (IOException ex) {
			return false;
		}
	}

	static String describe(Throwable ex) {
		return (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getSimpleName();
	}

	/**
	 * One instance of the sample app.
	 * @param id its instance id
	 * @param httpPort its HTTP port (actuator)
	 * @param jmxPort the port of its JMX server for the peers
	 * @param process its process
	 */
	record Instance(String id, int httpPort, int jmxPort, DemoProcess process) {
	}

	/** Sends the mails over one SMTP connection, paced over the send duration. */
	final class Sender implements Runnable {

		final AtomicInteger sent = new AtomicInteger();

		volatile @Nullable Exception failure;

		volatile boolean done;

		@Override
		public void run() {
			Properties properties = new Properties();
			properties.put("mail.smtp.connectiontimeout", "5000");
			properties.put("mail.smtp.timeout", "5000");
			Session session = Session.getInstance(properties);
			String run = Long.toString(System.currentTimeMillis(), 36);
			long start = System.nanoTime();
			long interval = DemoDriver.this.sendDuration.toNanos() / DemoDriver.this.mails;
			try (Transport transport = session.getTransport("smtp")) {
				for (int i = 1; i <= DemoDriver.this.mails; i++) {
					long due = start + (i - 1) * interval;
					long wait = due - System.nanoTime();
					if (wait > 0) {
						Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
					}
					if (!transport.isConnected()) {
						transport.connect("127.0.0.1", DemoDriver.this.smtpPort, null, null);
					}
					String user = MAILBOX_USERS.get((i - 1) % MAILBOX_USERS.size());
					String messageId = "<order-" + i + "." + run + "@" + DemoMailServer.DOMAIN + ">";
					MimeMessage mail = new MimeMessage(session) {
						@Override
						protected void updateMessageID() throws MessagingException {
							setHeader("Message-ID", messageId);
						}
					};
					mail.setFrom(new InternetAddress("customer-" + (i % CUSTOMERS + 1) + "@" + DemoMailServer.DOMAIN));
					mail.setRecipient(Message.RecipientType.TO, new InternetAddress(user + "@" + DemoMailServer.DOMAIN));
					mail.setSubject("Order " + i + ": " + (i % 5 + 1) + " x widget");
					mail.setText("Please send " + (i % 5 + 1) + " widgets.\n");
					mail.saveChanges();
					transport.sendMessage(mail, mail.getAllRecipients());
					DemoDriver.this.sentKeys.add(InboxKeys.messageId(messageId));
					this.sent.incrementAndGet();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Exception ex) {
				this.failure = ex;
			}
			finally {
				this.done = true;
			}
		}

	}

}
