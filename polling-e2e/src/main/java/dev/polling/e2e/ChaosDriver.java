package dev.polling.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import dev.polling.e2e.DemoDriver.Instance;

/**
 * The chaos run behind {@code ./chaos.sh}: the demo's mail server and three instances of the sample
 * app ({@link DemoDriver} sets them up, with the Spring profile {@code chaos}), thousands of mails,
 * random faults chosen from a seed and three fixed phases, while every instance's
 * {@code /actuator/polling} is sampled every {@value #SAMPLE_MILLIS} ms (in parallel, short timeout:
 * a frozen instance does not answer and counts as not holding).
 *
 * <p><b>Clusters.</b> The three mailbox clusters (timer delay 1 s), and with the profile
 * {@code chaos} twenty clusters {@code TICK_01..TICK_20} that every instance decides together every
 * 4 s, aligned to the wall clock, so that 60 decisions overlap (each granted cycle records who ran it
 * in {@code tick_cycles}). {@code FOLLOW_UPS} (coordinated through the database) is sampled too and
 * reported apart. The shared peer list has a fourth entry, {@code instance-4}, on whose ports nobody
 * listens except during two phases.
 *
 * <p><b>Ticks longer than the JMX idle timeout.</b> With the profile every JMX server closes a
 * connection idle for 2 s ({@code polling.jmx.server.idle-timeout}). The mailbox clusters keep their
 * connections busy (one request per second and cluster), so the tick clusters ask the same servers
 * through peer entries of their own ({@code tick-N}, by URL; {@link #tickPeers}): those connections
 * carry nothing but the ticks and are closed between every two of them, all run long, as with a timer
 * slower than the JDK's default idle timeout of 120 s. Checked: reads on the tick entries were made
 * again on a new connection (the peer client's debug line, counted in the logs), and no tick cluster
 * was taken over without a fault.
 *
 * <p><b>Random faults</b> (from the seed): SIGKILL of the holder of a random mailbox cluster
 * (restarted 2-6 s later) and SIGSTOP of such a holder for 3-12 s (longer than the peer timeout),
 * then SIGCONT.
 *
 * <p><b>Fixed phases</b>, one at a time, at 25, 50 and 75 % of the fault schedule; no random fault
 * is injected during a phase, the schedule's clock stands still meanwhile, and a phase begins only
 * when every instance answers and none is frozen:
 * <ol>
 * <li><b>settings mismatch</b>: {@code instance-4} starts with the wait time
 * {@value #MISMATCH_WAIT_TIME} for {@code MAILBOX_2} and {@code TICK_01..TICK_04} (the others: 10s).
 * Checked (a rolling configuration change): each of the four instances reports {@code settings-mismatch}
 * (or, the holder, {@code renewed-despite-settings-mismatch}) as the last decision of each of the five
 * clusters, the health of instances 1-3 stays 200 with the clusters {@code DEGRADED}, for
 * {@value #HOLD_SECONDS} s after that none of the five is held by {@code instance-4} or by two
 * instances, and after a SIGTERM to {@code instance-4} all five are held.</li>
 * <li><b>duplicate instance id</b>: a second process with the id {@code instance-1} starts on the
 * ports of the entry {@code instance-4} (and {@code tick-4}), with those entries and
 * {@code instance-1}'s swapped in its peer list (see {@code DuplicateIdPhase}). Checked: both processes with that id
 * report {@code duplicate-instance-id} for every JMX cluster, {@code instance-1}'s health is DOWN
 * naming it, neither holds a JMX cluster for {@value #HOLD_SECONDS} s after that, and after a SIGTERM
 * to the second one {@code instance-1}'s health is UP again.</li>
 * <li><b>rolling restart</b>: instance-1, 2 and 3 in turn get a SIGTERM and are started again; the
 * next one's turn comes when the previous one's health is UP. Takeovers after each SIGTERM are
 * measured like those after the random faults.</li>
 * </ol>
 *
 * <p><b>Holder changes.</b> Whenever a JMX cluster gets a holder other than its previous one, the
 * change is classified by the first refusal the previous holder reported after it stopped holding: a
 * balancing handover ({@code handed-over}); after a fault or phase (it had a fault or phase event
 * within 20 s, or reported {@code paused}, {@code settings-mismatch} or {@code duplicate-instance-id});
 * after a stop its own JVM detected without an injected fault ({@code stopped}); otherwise a takeover
 * without a fault, listed one by one.
 *
 * <p>At the end it reads the shared database: lost mails, duplicate business rows, duplicate fetches
 * caught by the inbox, confirmations and follow-up checks (it waits for them as the demo does), the
 * tick cycles, and for every period with two holders which instance fetched or ran what meanwhile.
 * The last line is {@code chaos: OK ...} (exit code 0) only with no sample in which two answering
 * instances held one JMX cluster, no lost or duplicate mail, confirmation or follow-up, every phase's
 * checks passed, every tick cluster ran, reads on the tick entries were made again after idle closes
 * and no tick cluster was taken over without a fault; else {@code chaos: FAILED ...} (exit code 1).
 *
 * <p>Arguments: {@code seed policy [mails] [send-seconds] [faults]} (defaults 42, proceed, 7200, 360,
 * 24); the random faults are planned over two thirds of the send time (the phases take about the
 * rest). The policy ({@code proceed} or {@code presume-last-known}) is handed to every instance as
 * {@code --polling.jmx.unreachable-peer-policy}. Work directory: {@code chaos-work/<policy>}.
 */
public final class ChaosDriver {

	static final long SAMPLE_MILLIS = 150;

		static final int HOLD_SECONDS = 15;

	static final String MISMATCH_WAIT_TIME = "12s";

	/** The chaos profile's tick clusters ({@code application-chaos.yml}). */
	static final List<String> TICK_CLUSTERS = IntStream.rangeClosed(1, 20)
		.mapToObj((i) -> String.format(Locale.ROOT, "TICK_%02d", i))
		.toList();

	/** The clusters coordinated over JMX: the mailboxes and the ticks; no sample may show two holders of one. */
	static final List<String> JMX_CLUSTERS = Stream.concat(DemoDriver.CLUSTERS.stream(), TICK_CLUSTERS.stream()).toList();

	/** Every sampled cluster: the JMX ones and the one coordinated through the database, reported apart. */
	static final List<String> SAMPLED = Stream.concat(JMX_CLUSTERS.stream(), Stream.of(DemoDriver.JOBS_CLUSTER)).toList();

	/** The clusters the fourth instance of the mismatch phase has another wait time for. */
	static final List<String> MISMATCH_CLUSTERS = List.of("MAILBOX_2", "TICK_01", "TICK_02", "TICK_03", "TICK_04");

	/** The peer entries of the tick clusters: the same JMX servers as {@code instance-N}, by URL, used by nothing else. */
	static final String TICK_PEER_PREFIX = "tick-";

	/** What the peer client logs (at debug) when it reads again on a new connection because the cached one died. */
	static final String RECONNECT_LOG = "reading again on a new one";

	/** Release reasons that a fault or phase explains by themselves. */
	private static final Set<String> PHASE_REASONS = Set.of("paused", "settings-mismatch", "duplicate-instance-id");

	private static final int PHASES = 3;

	private static final double[] PHASE_AT = { 0.25, 0.5, 0.75 };

	private static final Duration HTTP_TIMEOUT = Duration.ofMillis(600);

	private static final Duration TAKEOVER_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(150);

	private static final long EVENT_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(20);

	private static final long PHASE_START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(150);

	private static final long PHASE_REPORT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(40);

	private static final long PHASE_RECOVERY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

	private static final long PHASE_STOP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

	private static final long AFTER_PHASE_NANOS = TimeUnit.SECONDS.toNanos(5);

	private final DemoDriver demo;

	private final long seed;

	private final String policy;

	private final int faultCount;

	private final Duration sendDuration;

	private final List<Fault> faults = new ArrayList<>();

	private final List<Phase> phases = new ArrayList<>();

	private final List<TwoHolders> twoHolderPeriods = new ArrayList<>();

	private final Map<String, TwoHolders> openTwoHolders = new HashMap<>();

	private final Map<String, Long> noHolderNanos = new LinkedHashMap<>();

	private final Map<String, Long> twoHolderNanos = new LinkedHashMap<>();

	/** Samples in which two answering instances held one JMX cluster; the same for FOLLOW_UPS. */
	private int twoHolderSamples;

	/**
	 * Samples with two holders of a JMX cluster where a holder's last decision had no answer from the
	 * other within the peer timeout: not "instances that can reach each other", so outside the
	 * guarantee (under proceed such a peer counts as gone); reported, not part of the verdict.
	 */
	private int unreachableTwoHolderSamples;

	private int followUpTwoHolderSamples;

	private final Map<Instance, Long> frozenUntil = new HashMap<>();

	private final Map<Instance, Long> restartAt = new HashMap<>();

	/** Instances a phase stopped on purpose (rolling restart). */
	private final Set<Instance> expectedDown = new HashSet<>();

	/** Processes a phase started beside the three instances (instance-4, the second instance-1). */
	private final List<Instance> extras = new ArrayList<>();

	private final List<Event> events = new ArrayList<>();

	private final List<HolderChange> holderChanges = new ArrayList<>();

	private final Map<String, String> lastHolder = new HashMap<>();

	private final Map<String, List<String>> previousHolders = new HashMap<>();

	private final Map<String, Boolean> holding = new HashMap<>();

	private final Map<String, String> releaseReason = new HashMap<>();

	private final Set<String> releasePending = new HashSet<>();

	private @Nullable String tickFailure;

	private @Nullable String reconnectFailure;

	private int tickReconnects;

	private final List<String> reconnectLines = new ArrayList<>();

	private final List<String> tickLines = new ArrayList<>();

	private final long startNanos = System.nanoTime();

	/** The machine's one-minute load average, read every 10 s. */
	private final List<Double> loads = new ArrayList<>();

	ChaosDriver(DemoDriver demo, long seed, String policy, int faultCount, Duration sendDuration) {
		this.demo = demo;
		this.seed = seed;
		this.policy = policy;
		this.faultCount = faultCount;
		this.sendDuration = sendDuration;
		DemoDriver.CLUSTERS.forEach((cluster) -> this.noHolderNanos.put(cluster, 0L));
		SAMPLED.forEach((cluster) -> this.twoHolderNanos.put(cluster, 0L));
	}

	public static void main(String[] args) {
		long seed = Long.parseLong((args.length > 0) ? args[0] : "42");
		String policy = (args.length > 1) ? args[1] : "proceed";
		int mails = Integer.parseInt((args.length > 2) ? args[2] : "7200");
		Duration send = Duration.ofSeconds(Long.parseLong((args.length > 3) ? args[3] : "360"));
		int faults = Integer.parseInt((args.length > 4) ? args[4] : "24");
		DemoDriver.Jars jars = DemoDriver.jarsOrExit("chaos");
		String java = ProcessHandle.current().info().command().orElse("java");
		DemoDriver demo = new DemoDriver(mails, send, Path.of(System.getProperty("demo.work", "chaos-work/" + policy)), java, jars);
		demo.instanceArguments.add("--polling.jmx.unreachable-peer-policy=" + policy);
		addTickClusters(demo);
		// the peer client's line for a connection re-made after the peer closed it, counted in the idle phase
		demo.instanceArguments.add("--logging.level.dev.polling.core.jmx.JmxPeerClient=debug");
		demo.extraPeerSlots = 1;
		ChaosDriver chaos = new ChaosDriver(demo, seed, policy, faults, send);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			chaos.resumeAll();
			chaos.stopExtras();
			demo.stopAll();
		}, "chaos-shutdown"));
		List<String> lines;
		boolean ok;
		String failure;
		try {
			failure = chaos.run();
		}
		catch (Exception ex) {
			failure = DemoDriver.describe(ex);
		}
		chaos.resumeAll();
		chaos.stopExtras();
		DemoReport report = demo.report(failure);
		lines = chaos.summary(report);
		ok = chaos.ok(report);
		demo.stopAll();
		System.out.println();
		System.out.println("chaos: summary (seed " + seed + ", policy " + policy + ")");
		lines.forEach(System.out::println);
		System.out.println(chaos.lastLine(report, ok));
		System.out.flush();
		System.exit(ok ? 0 : 1);
	}

	/**
	 * The tick clusters {@code TICK_01..TICK_20} and the JMX idle timeout of 2 s on every instance (profile
	 * {@code chaos}, {@code application-chaos.yml}), on peer entries of their own ({@link #tickPeers}).
	 * @param demo the run's driver, before its instances start
	 */
	static void addTickClusters(DemoDriver demo) {
		demo.instanceArguments.add("--spring.profiles.active=chaos");
		demo.configurationAddition = ChaosDriver::tickPeers;
	}

	/**
	 * The shared configuration's part for the chaos run: every JMX server once more as a peer entry
	 * {@code tick-N}, by URL, which only the tick clusters ask (and the mailboxes only the entries
	 * {@code instance-N}); so the tick clusters' connections carry nothing but the ticks every 4 s, and
	 * the peers' idle timeout of 2 s closes them between two ticks, as with a timer slower than the
	 * JDK's default idle timeout of 120 s.
	 */
	static String tickPeers(List<int[]> ports) {
		StringBuilder yaml = new StringBuilder("    # the chaos run: the same JMX servers for the tick clusters only (connections of their own)\n");
		List<String> instancePeers = new ArrayList<>();
		List<String> tickPeers = new ArrayList<>();
		for (int i = 1; i <= ports.size(); i++) {
			yaml.append("    ").append(TICK_PEER_PREFIX).append(i).append(":\n      url: \"").append(jmxUrl(ports.get(i - 1)[1]))
				.append("\"\n");
			instancePeers.add("instance-" + i);
			tickPeers.add(TICK_PEER_PREFIX + i);
		}
		yaml.append("  clusters:\n");
		for (String cluster : DemoDriver.CLUSTERS) {
			yaml.append("    ").append(cluster).append(":\n      peers: [").append(String.join(", ", instancePeers)).append("]\n");
		}
		for (String cluster : TICK_CLUSTERS) {
			yaml.append("    ").append(cluster).append(":\n      peers: [").append(String.join(", ", tickPeers)).append("]\n");
		}
		return yaml.toString();
	}

	/** The JMX service URL of an instance's server on this machine. */
	static String jmxUrl(int port) {
		return "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi";
	}

		@Nullable String run() throws Exception {
		this.demo.prepareWorkDirectory();
		this.demo.say("chaos: seed %d, policy %s, %d faults and 3 phases, %d mails over %d s", this.seed, this.policy,
				this.faultCount, this.demo.mailCount(), this.sendDuration.toSeconds());
		this.demo.startAll();

		// every random choice is drawn up front, so the same seed gives the same plan
		Random random = new Random(this.seed);
		long window = this.sendDuration.toNanos() * 2 / 3;
		long spacing = window / (this.faultCount + 1);
		List<Planned> plan = new ArrayList<>();
		for (int i = 0; i < this.faultCount; i++) {
			long at = spacing / 2 + i * spacing + (long) ((random.nextDouble() - 0.5) * spacing / 2);
			boolean kill = random.nextBoolean();
			String cluster = DemoDriver.CLUSTERS.get(random.nextInt(DemoDriver.CLUSTERS.size()));
			long pause = TimeUnit.SECONDS.toNanos(kill ? 2 + random.nextInt(5) : 3 + random.nextInt(10));
			plan.add(new Fault("fault " + (i + 1), kill ? "SIGKILL" : "SIGSTOP", cluster, at, pause));
		}
		plan.add(new MismatchPhase((long) (window * PHASE_AT[0])));
		plan.add(new DuplicateIdPhase((long) (window * PHASE_AT[1])));
		plan.add(new RollingRestartPhase((long) (window * PHASE_AT[2])));
		plan.sort(Comparator.comparingLong(Planned::offset));

		DemoDriver.Sender sender = this.demo.new Sender();
		Thread sending = new Thread(sender, "chaos-sender");
		sending.setDaemon(true);
		sending.start();
		long sendStart = System.nanoTime();

		long last = System.nanoTime();
		long drainDeadline = 0;
		int next = 0;
		long lastPrint = 0;
		long phaseNanos = 0;
		long quietUntil = 0;
		Phase active = null;
		while (true) {
			if (sender.failure != null) {
				return "sending mail failed: " + DemoDriver.describe(sender.failure);
			}
			Sample sample = sample();
			long now = System.nanoTime();
			account(sample, now - last, now);
			last = now;
			trackHolders(sample, now);
			for (Instance instance : this.demo.instances) {
				if (!instance.process().isAlive() && !this.restartAt.containsKey(instance) && !this.expectedDown.contains(instance)) {
					return instance.id() + " ended unexpectedly; see " + instance.process().log();
				}
			}
			resumeAndRestart(now);
			observeTakeovers(sample.holders(), now);
			long effective = now - sendStart - phaseNanos - ((active != null) ? now - active.startNanos : 0);
			if (active != null) {
				boolean done;
				try {
					done = active.step(sample, now);
				}
				catch (Exception ex) {
					active.fail("the driver failed: " + DemoDriver.describe(ex));
					active.abort();
					done = true;
				}
				if (done) {
					active.endNanos = now;
					active.endEpochMillis = System.currentTimeMillis();
					phaseNanos += now - active.startNanos;
					this.demo.say("phase %s ended after %.1f s%s", active.name, (now - active.startNanos) / 1e9,
							(active.failure != null) ? ": FAILED: " + active.failure : "");
					active = null;
					quietUntil = now + AFTER_PHASE_NANOS;
				}
			}
			else if (next < plan.size() && now >= quietUntil && effective >= plan.get(next).offset()) {
				Planned item = plan.get(next);
				if (item instanceof Fault fault) {
					if (inject(fault, sample.holders(), now)) {
						next++;
					}
				}
				else if (item instanceof Phase phase && this.frozenUntil.isEmpty() && this.restartAt.isEmpty()
						&& this.demo.instances.stream().allMatch((i) -> sample.answered(i.id()))) {
					phase.startNanos = now;
					phase.startEpochMillis = System.currentTimeMillis();
					this.phases.add(phase);
					this.demo.say("phase %s begins", phase.name);
					try {
						phase.begin(sample, now);
						active = phase;
					}
					catch (Exception ex) {
						phase.fail("could not begin: " + DemoDriver.describe(ex));
						phase.abort();
						phase.endNanos = System.nanoTime();
						phase.endEpochMillis = System.currentTimeMillis();
					}
					next++;
				}
			}
			if (now - lastPrint > 10_000_000_000L) {
				lastPrint = now;
				readLoad();
				Map<String, List<String>> mailboxes = new LinkedHashMap<>();
				DemoDriver.CLUSTERS.forEach((cluster) -> mailboxes.put(cluster, sample.holders().get(cluster)));
				this.demo.say("sent %d/%d processed %d | %s | ticks held %s | plan %d/%d%s", sender.sent.get(), this.demo.mailCount(),
						this.demo.processedCount(), mailboxes, ticksHeld(sample), next, plan.size(),
						(active != null) ? " | phase " + active.name : "");
			}
			if (sender.done && next >= plan.size() && active == null && this.frozenUntil.isEmpty() && this.restartAt.isEmpty()) {
				if (drainDeadline == 0) {
					drainDeadline = now + DRAIN_TIMEOUT.toNanos();
					this.demo.say("all mails sent, all faults injected, all phases done; waiting until every mail is processed");
				}
				boolean allUp = this.demo.instances.stream().allMatch(this.demo::healthy);
				if (allUp && this.faults.stream().allMatch((f) -> f.takeoverNanos != 0)
						&& this.demo.processedCount() >= this.demo.mailCount()) {
					closeOpenPeriods();
					this.demo.say("all mails processed");
					break;
				}
				if (now > drainDeadline) {
					closeOpenPeriods();
					return "gave up waiting " + DRAIN_TIMEOUT.toSeconds() + " s for the mails to be processed";
				}
			}
			else if (next < plan.size() && active == null && sender.done && effective > plan.get(plan.size() - 1).offset() + 60_000_000_000L) {
				return "could not inject all faults and phases (" + next + " of " + plan.size() + ")";
			}
			long sleep = TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS) - (System.nanoTime() - now);
			if (sleep > 0) {
				Thread.sleep(sleep / 1_000_000);
			}
		}
		String failure = this.demo.awaitConfirmationsAndFollowUps(() -> this.demo.say("processed %d | %s",
				this.demo.processedCount(), sample().holders()));
		this.demo.awaitMailboxesEmpty();
		return failure;
	}

	// ---------------------------------------------------------------- random faults

	/** A holder of the fault's cluster that answers, and another instance that answers; else later. */
	private boolean inject(Fault fault, Map<String, List<String>> holders, long now) throws Exception {
		List<String> held = holders.get(fault.cluster);
		if (held.size() != 1 || !this.expectedDown.isEmpty()) {
			return false;
		}
		Instance victim = instance(held.get(0));
		if (victim == null) {
			return false;
		}
		long answering = this.demo.instances.stream()
			.filter((i) -> i != victim && !this.frozenUntil.containsKey(i) && !this.restartAt.containsKey(i))
			.count();
		if (answering == 0 || this.frozenUntil.containsKey(victim) || this.restartAt.containsKey(victim)) {
			return false;
		}
		fault.victim = victim.id();
		fault.at = now;
		for (String cluster : DemoDriver.CLUSTERS) {
			if (holders.get(cluster).contains(victim.id())) {
				fault.clusters.add(cluster);
			}
		}
		if (fault.kind.equals("SIGKILL")) {
			victim.process().kill();
			this.restartAt.put(victim, now + fault.pause);
		}
		else {
			signal("STOP", victim.process().pid());
			this.frozenUntil.put(victim, now + fault.pause);
		}
		event(victim.id(), fault.kind, now);
		this.faults.add(fault);
		this.demo.say("%s: %s %s (pid %d), holder of %s; %s after %.0f s", fault.label, fault.kind, victim.id(),
				victim.process().pid(), fault.clusters, fault.kind.equals("SIGKILL") ? "restart" : "SIGCONT", fault.pause / 1e9);
		return true;
	}

	private void resumeAndRestart(long now) throws IOException {
		for (var iterator = this.frozenUntil.entrySet().iterator(); iterator.hasNext();) {
			var entry = iterator.next();
			if (now >= entry.getValue()) {
				signal("CONT", entry.getKey().process().pid());
				iterator.remove();
				event(entry.getKey().id(), "SIGCONT", now);
				this.demo.say("SIGCONT %s", entry.getKey().id());
				for (Fault fault : this.faults) {
					if (fault.victim.equals(entry.getKey().id()) && fault.resumedAt == 0 && fault.kind.equals("SIGSTOP")) {
						fault.resumedAt = now;
					}
				}
			}
		}
		for (var iterator = this.restartAt.entrySet().iterator(); iterator.hasNext();) {
			var entry = iterator.next();
			if (now >= entry.getValue()) {
				entry.getKey().process().start();
				iterator.remove();
				event(entry.getKey().id(), "restart", now);
				this.demo.say("restarting %s", entry.getKey().id());
			}
		}
	}

	private void observeTakeovers(Map<String, List<String>> holders, long now) {
		for (Fault fault : this.faults) {
			if (fault.takeoverNanos != 0) {
				continue;
			}
			boolean all = true;
			for (String cluster : fault.clusters) {
				if (fault.takenOver.containsKey(cluster)) {
					continue;
				}
				List<String> held = holders.get(cluster);
				if (held.stream().anyMatch((id) -> !id.equals(fault.victim))) {
					fault.takenOver.put(cluster, now - fault.at);
					this.demo.say("takeover: %s by %s %.1f s after %s (%s %s)", cluster, held, (now - fault.at) / 1e9, fault.label,
							fault.kind, fault.victim);
				}
				else if (fault.resumedAt != 0 && held.contains(fault.victim)) {
					fault.takenOver.put(cluster, -1L); // resumed before anyone took over, and kept it
				}
				else if (now - fault.at > TAKEOVER_TIMEOUT.toNanos()) {
					fault.takenOver.put(cluster, -2L);
				}
				else {
					all = false;
				}
			}
			if (all) {
				fault.takeoverNanos = Math.max(1, now - fault.at);
			}
		}
	}

	// ---------------------------------------------------------------- sampling

	private void account(Sample sample, long elapsed, long now) {
		boolean twoJmx = false;
		for (String cluster : SAMPLED) {
			List<String> held = sample.holders().get(cluster);
			if (held.isEmpty() && this.noHolderNanos.containsKey(cluster)) {
				this.noHolderNanos.merge(cluster, elapsed, Long::sum);
			}
			TwoHolders open = this.openTwoHolders.get(cluster);
			if (held.size() > 1) {
				if (cluster.equals(DemoDriver.JOBS_CLUSTER)) {
					this.followUpTwoHolderSamples++;
				}
				else {
					twoJmx = true;
				}
				this.twoHolderNanos.merge(cluster, elapsed, Long::sum);
				if (open == null) {
					open = new TwoHolders(cluster, now, System.currentTimeMillis(), new ArrayList<>(held));
					this.openTwoHolders.put(cluster, open);
					this.twoHolderPeriods.add(open);
					this.demo.say("TWO HOLDERS of %s: %s", cluster, held);
				}
				open.samples++;
				if (open.unreachable == null && !cluster.equals(DemoDriver.JOBS_CLUSTER)) {
					open.unreachable = unreachable(sample, cluster, held);
				}
				open.endNanos = now;
				open.endEpochMillis = System.currentTimeMillis();
			}
			else if (open != null) {
				this.openTwoHolders.remove(cluster);
				this.demo.say("two holders of %s ended after %d samples; now %s", cluster, open.samples, held);
			}
		}
		if (twoJmx) {
			if (unreachablePair(sample) != null) {
				this.unreachableTwoHolderSamples++;
			}
			else {
				this.twoHolderSamples++;
			}
		}
	}

	/** The first JMX cluster of the sample whose holders do not all reach each other, as text, or null. */
	private static String unreachablePair(Sample sample) {
		for (String cluster : SAMPLED) {
			List<String> held = sample.holders().get(cluster);
			if (held.size() > 1 && !cluster.equals(DemoDriver.JOBS_CLUSTER)) {
				String unreachable = unreachable(sample, cluster, held);
				if (unreachable == null) {
					return null; // one cluster with two holders that reach each other decides the sample
				}
				return unreachable;
			}
		}
		return null;
	}

	/**
	 * Whether a holder's last decision of the cluster got no answer from another holder (unresponsive,
	 * error or refused): e.g. "instance-1 saw instance-2 unresponsive/timeout"; null when every holder
	 * answered every other one.
	 */
	private static String unreachable(Sample sample, String cluster, List<String> holders) {
		for (String holder : holders) {
			for (JsonNode peer : sample.cluster(holder, cluster).path("peers")) {
				String id = peer.path("id").asString("");
				// the tick clusters ask the same instances through peer entries of their own: tick-2 is instance-2
				String instance = id.startsWith("tick-") ? "instance-" + id.substring("tick-".length()) : id;
				String state = peer.path("state").asString("").toLowerCase(Locale.ROOT);
				if (!instance.equals(holder) && holders.contains(instance) && !state.equals("answered") && !state.equals("self")) {
					return holder + " saw " + id + " (" + instance + ") " + state
							+ (peer.path("fault").isString() ? "/" + peer.path("fault").asString() : "");
				}
			}
		}
		return null;
	}

	/** Notes release reasons, and classifies every change of a JMX cluster's holder. */
	private void trackHolders(Sample sample, long now) {
		for (String cluster : JMX_CLUSTERS) {
			List<String> held = sample.holders().get(cluster);
			for (String label : sample.statuses().keySet()) {
				String key = label + "|" + cluster;
				boolean holds = held.contains(label);
				if (holds) {
					this.releaseReason.remove(key);
					this.releasePending.remove(key);
				}
				else if (Boolean.TRUE.equals(this.holding.get(key))) {
					this.releasePending.add(key);
				}
				// the reason of the first refusal after it stopped holding: a sample may see the hold gone
				// before the decision that let go is recorded (or a stop void it before any decision)
				if (!holds && this.releasePending.contains(key) && sample.outcome(label, cluster).equals("refused")) {
					this.releaseReason.put(key, sample.reason(label, cluster));
					this.releasePending.remove(key);
				}
				this.holding.put(key, holds);
			}
			String previous = this.lastHolder.get(cluster);
			List<String> before = this.previousHolders.getOrDefault(cluster, List.of());
			for (String holder : held) {
				if (previous != null && !holder.equals(previous) && !before.contains(holder)) {
					classify(cluster, previous, holder, sample, now);
				}
			}
			// a holder that does not answer this time (frozen, slow) but is alive still counts as holding, so
			// that its next answer is no new holder
			List<String> holders = new ArrayList<>(held);
			for (String label : before) {
				Instance instance = instance(label);
				if (!holders.contains(label) && !sample.answered(label) && instance != null && instance.process().isAlive()) {
					holders.add(label);
				}
			}
			this.previousHolders.put(cluster, holders);
			if (holders.size() == 1) {
				this.lastHolder.put(cluster, holders.get(0));
			}
		}
	}

	private void classify(String cluster, String from, String to, Sample sample, long now) {
		String reason;
		if (!sample.answered(from)) {
			reason = "no answer";
		}
		else if (sample.holders().get(cluster).contains(from)) {
			reason = "still holding";
		}
		else {
			reason = this.releaseReason.getOrDefault(from + "|" + cluster, sample.reason(from, cluster));
		}
		Kind kind;
		if (reason.equals("handed-over")) {
			kind = Kind.HANDOVER;
		}
		else if (disturbed(from, now) || PHASE_REASONS.contains(reason)) {
			kind = Kind.AFTER_FAULT;
		}
		else if (reason.equals("stopped")) {
			kind = Kind.OWN_STOP;
		}
		else {
			kind = Kind.WITHOUT_FAULT;
		}
		HolderChange change = new HolderChange(now, cluster, from, to, reason, kind, sample.reason(to, cluster),
				sample.peerStates(to, cluster));
		this.holderChanges.add(change);
		if (kind == Kind.WITHOUT_FAULT) {
			this.demo.say("TAKEOVER WITHOUT A FAULT: %s from %s (%s) to %s (%s; peers %s)", cluster, from, reason, to, change.toReason,
					change.toPeers);
		}
	}

	/** Whether the instance had a fault or phase event lately, or is frozen or down on purpose now. */
	private boolean disturbed(String label, long now) {
		for (Event event : this.events) {
			if (event.label.equals(label) && now - event.nanos < EVENT_WINDOW_NANOS) {
				return true;
			}
		}
		Instance instance = instance(label);
		return instance != null && (this.frozenUntil.containsKey(instance) || this.restartAt.containsKey(instance)
				|| this.expectedDown.contains(instance));
	}

	private void event(String label, String kind, long now) {
		this.events.add(new Event(label, kind, now));
	}

	private void closeOpenPeriods() {
		this.openTwoHolders.clear();
	}

	/** Every live instance's {@code /actuator/polling}, asked in parallel; one that does not answer in time holds nothing. */
	private Sample sample() {
		Map<String, List<String>> holders = new LinkedHashMap<>();
		SAMPLED.forEach((cluster) -> holders.put(cluster, new ArrayList<>()));
		Map<Instance, CompletableFuture<HttpResponse<String>>> calls = new LinkedHashMap<>();
		for (Instance instance : live()) {
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort() + "/actuator/polling"))
				.timeout(HTTP_TIMEOUT)
				.build();
			calls.put(instance, this.demo.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
		}
		Map<String, JsonNode> statuses = new LinkedHashMap<>();
		calls.forEach((instance, call) -> {
			try {
				HttpResponse<String> response = call.get(HTTP_TIMEOUT.toMillis() + 200, TimeUnit.MILLISECONDS);
				if (response.statusCode() != 200) {
					return;
				}
				JsonNode status = this.demo.json.readTree(response.body());
				statuses.put(instance.id(), status);
				for (String cluster : SAMPLED) {
					if (status.path("clusters").path(cluster).path("holding").asBoolean(false)) {
						holders.get(cluster).add(instance.id());
					}
				}
			}
			catch (Exception ex) {
				// frozen, starting or gone: not holding as far as anyone can see
			}
		});
		return new Sample(holders, statuses);
	}

	private List<Instance> live() {
		List<Instance> live = new ArrayList<>();
		for (Instance instance : this.demo.instances) {
			if (instance.process().isAlive()) {
				live.add(instance);
			}
		}
		synchronized (this.extras) {
			for (Instance instance : this.extras) {
				if (instance.process().isAlive()) {
					live.add(instance);
				}
			}
		}
		return live;
	}

	private static String ticksHeld(Sample sample) {
		Map<String, Integer> byInstance = new TreeMap<>();
		int twice = 0;
		for (String cluster : TICK_CLUSTERS) {
			List<String> held = sample.holders().get(cluster);
			held.forEach((label) -> byInstance.merge(label, 1, Integer::sum));
			twice += (held.size() > 1) ? 1 : 0;
		}
		return byInstance + ((twice > 0) ? " TWO HOLDERS of " + twice : "");
	}

	private @Nullable Instance instance(String label) {
		for (Instance instance : this.demo.instances) {
			if (instance.id().equals(label)) {
				return instance;
			}
		}
		synchronized (this.extras) {
			for (Instance instance : this.extras) {
				if (instance.id().equals(label)) {
					return instance;
				}
			}
		}
		return null;
	}

	/** The status code of {@code /actuator/health} and its body, or -1 when it does not answer. */
	private Health health(Instance instance) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.httpPort() + "/actuator/health"))
			.timeout(Duration.ofSeconds(2))
			.build();
		try {
			HttpResponse<String> response = this.demo.http.send(request, HttpResponse.BodyHandlers.ofString());
			return new Health(response.statusCode(), response.body());
		}
		catch (IOException ex) {
			return new Health(-1, "");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Health(-1, "");
		}
	}

	/**
	 * Counts, in every instance's log, the peer client's reads made again on a new connection because
	 * the cached one had died, by instance and kind of peer entry ({@code tick-N}: the tick clusters'
	 * own entries; {@code instance-N}: the mailboxes'), and checks that the tick entries had some.
	 */
	private void countReconnects() {
		Map<String, int[]> byLog = new TreeMap<>();
		int[] total = new int[3];
		try (Stream<Path> logs = Files.list(this.demo.work.resolve("logs"))) {
			for (Path log : logs.filter((p) -> p.getFileName().toString().startsWith("instance-")).sorted().toList()) {
				int[] counts = new int[3];
				// an entry whose exception message has a line break goes on in lines that begin with a tab
				String entry = "";
				for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
					entry = line.startsWith("\t") ? entry + line : line;
					if (line.contains(RECONNECT_LOG)) {
						boolean tick = entry.contains("Peer '" + TICK_PEER_PREFIX);
						counts[tick ? 0 : 1]++;
						if (tick && entry.contains("NoSuchObjectException")) {
							counts[2]++;
						}
					}
				}
				byLog.put(log.getFileName().toString().replace(".log", ""), counts);
				for (int i = 0; i < 3; i++) {
					total[i] += counts[i];
				}
			}
		}
		catch (IOException | UncheckedIOException ex) {
			this.reconnectFailure = "could not read the logs: " + ex.getMessage();
			return;
		}
		this.tickReconnects = total[0];
		StringBuilder per = new StringBuilder();
		byLog.forEach((label, counts) -> per.append(per.isEmpty() ? "" : ", ").append(label).append(' ').append(counts[0]).append('/')
			.append(counts[1]));
		this.reconnectLines.add(String.format(Locale.ROOT,
				"  reads made again on a new connection     %5d   on the tick clusters' peer entries (%d of them after NoSuchObjectException: "
						+ "closed by the peer), %d on the mailboxes' (by instance, tick/mailbox: %s)",
				total[0], total[2], total[1], per));
		if (total[0] == 0) {
			this.reconnectFailure = "no read on the tick clusters' peer entries was made again on a new connection: "
					+ "no idle close was tested";
		}
	}

	private void readLoad() {
		double load = DemoDriver.loadAverage();
		if (load >= 0) {
			this.loads.add(load);
		}
	}

	private static void signal(String signal, long pid) throws IOException {
		try {
			new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	synchronized void resumeAll() {
		for (Instance instance : this.frozenUntil.keySet()) {
			try {
				signal("CONT", instance.process().pid());
			}
			catch (IOException ex) {
				// best effort at shutdown
			}
		}
		this.frozenUntil.clear();
	}

	void stopExtras() {
		List<Instance> running;
		synchronized (this.extras) {
			running = new ArrayList<>(this.extras);
		}
		for (Instance instance : running) {
			try {
				instance.process().stop(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void addExtra(Instance instance) {
		synchronized (this.extras) {
			this.extras.add(instance);
		}
	}

	private void removeExtra(Instance instance) {
		synchronized (this.extras) {
			this.extras.remove(instance);
		}
	}

	private double seconds(long nanos) {
		return (nanos - this.startNanos) / 1e9;
	}

	// ---------------------------------------------------------------- the phases

	/** Something planned: a random fault or a phase, at an offset into the schedule (phases do not count). */
	private interface Planned {

		long offset();

	}

	/** A fixed phase: begun by the main loop, then stepped once per sample until it says it is done. */
	private abstract class Phase implements Planned {

		final String name;

		private final long offset;

		long startNanos;

		long endNanos;

		long startEpochMillis;

		long endEpochMillis;

		@Nullable String failure;

		final List<String> report = new ArrayList<>();

		Phase(String name, long offset) {
			this.name = name;
			this.offset = offset;
		}

		@Override
		public long offset() {
			return this.offset;
		}

		abstract void begin(Sample sample, long now) throws Exception;

		/** @return whether the phase is over */
		abstract boolean step(Sample sample, long now) throws Exception;

		/** Puts things back after a failure of the driver itself. */
		abstract void abort();

		void fail(String why) {
			if (this.failure == null) {
				this.failure = why;
			}
			ChaosDriver.this.demo.say("phase %s: FAILED: %s", this.name, why);
		}

		void note(String format, Object... args) {
			String line = String.format(Locale.ROOT, format, args);
			this.report.add(line);
			ChaosDriver.this.demo.say("phase %s: %s", this.name, line);
		}

		double since(long nanos, long now) {
			return (now - nanos) / 1e9;
		}

	}

	/** Steps shared by the two phases with a fourth process: start, wait until it answers, check, hold, stop, recover. */
	private abstract class ExtraInstancePhase extends Phase {

		enum Step {
			STARTING, REPORTING, HOLDING, STOPPING, RECOVERING
		}

		final Instance extra;

		Step step = Step.STARTING;

		long upAt;

		long reportedAt;

		long stopAt;

		final Set<String> seen = new LinkedHashSet<>();

		@Nullable String detail;

		int heldSamples;

		final Set<String> heldBy = new TreeSet<>();

		ExtraInstancePhase(String name, long offset, Instance extra) {
			super(name, offset);
			this.extra = extra;
		}

		/** Each instance label and cluster that must report the reason. */
		abstract List<String> expected();

		/** Each of the labels with each of the clusters, as {@code label|cluster}. */
		static List<String> pairs(List<String> labels, List<String> clusters) {
			List<String> pairs = new ArrayList<>();
			for (String label : labels) {
				clusters.forEach((cluster) -> pairs.add(label + "|" + cluster));
			}
			return pairs;
		}

		abstract String reason();

		/** Whether a last decision with this reason counts as the phase's report. */
		boolean reports(String reason) {
			return reason.equals(reason());
		}

		/** The instances whose health must answer {@link #healthStatus()} naming {@link #healthText()}. */
		abstract List<Instance> downInstances();

		/** The HTTP status of their health: DOWN (503). */
		int healthStatus() {
			return 503;
		}

		/** What their health names. */
		String healthText() {
			return "(" + reason() + ")";
		}

		/** The (instance, cluster) pairs that must not be held while the reason is reported. */
		abstract Set<String> heldDuringPhase(Sample sample);

		abstract boolean recovered(Sample sample);

		@Override
		void begin(Sample sample, long now) throws IOException {
			addExtra(this.extra);
			this.extra.process().start();
			event(this.extra.id(), "start", now);
		}

		@Override
		boolean step(Sample sample, long now) throws Exception {
			switch (this.step) {
				case STARTING -> {
					if (!this.extra.process().isAlive()) {
						removeExtra(this.extra);
						fail(this.extra.id() + " ended during its start; see " + this.extra.process().log());
						return true;
					}
					if (sample.answered(this.extra.id())) {
						this.upAt = now;
						this.step = Step.REPORTING;
						note("%s answers %.1f s after its start", this.extra.id(), since(this.startNanos, now));
					}
					else if (now - this.startNanos > PHASE_START_TIMEOUT_NANOS) {
						fail(this.extra.id() + " did not answer within " + PHASE_START_TIMEOUT_NANOS / 1_000_000_000L + " s");
						stop(now);
					}
				}
				case REPORTING -> {
					for (String label : sample.statuses().keySet()) {
						for (String cluster : JMX_CLUSTERS) {
							if (reports(sample.reason(label, cluster)) && expected().contains(label + "|" + cluster)) {
								this.seen.add(label + "|" + cluster);
								if (this.detail == null) {
									this.detail = sample.cluster(label, cluster).path("lastDecision").path("detail").asString(null);
								}
							}
						}
					}
					if (this.seen.containsAll(expected())) {
						this.reportedAt = now;
						note("%s reported by all %d (instance, cluster) pairs %.1f s after %s answered; e.g. \"%s\"", reason(),
								expected().size(), since(this.upAt, now), this.extra.id(), this.detail);
						for (Instance instance : downInstances()) {
							Health health = health(instance);
							boolean down = health.status == healthStatus() && health.body.contains(healthText());
							note("health of %s: %d%s", instance.id(), health.status, down ? " naming " + healthText() : "");
							if (!down) {
								fail("the health of " + instance.id() + " is not " + healthStatus() + " with " + healthText() + " ("
										+ health.status + ")");
							}
						}
						this.step = Step.HOLDING;
					}
					else if (now - this.upAt > PHASE_REPORT_TIMEOUT_NANOS) {
						List<String> missing = expected().stream().filter((pair) -> !this.seen.contains(pair)).toList();
						fail(reason() + " not reported within " + PHASE_REPORT_TIMEOUT_NANOS / 1_000_000_000L + " s by " + missing.size()
								+ " (instance, cluster) pairs, e.g. " + missing.subList(0, Math.min(5, missing.size())));
						stop(now);
					}
				}
				case HOLDING -> {
					Set<String> held = heldDuringPhase(sample);
					if (!held.isEmpty()) {
						this.heldSamples++;
						this.heldBy.addAll(held);
					}
					if (now - this.reportedAt >= TimeUnit.SECONDS.toNanos(HOLD_SECONDS)) {
						note("samples in %d s in which a refused cluster was held: %d%s", HOLD_SECONDS, this.heldSamples,
								this.heldBy.isEmpty() ? "" : " " + this.heldBy);
						if (this.heldSamples > 0) {
							fail("refused clusters held in " + this.heldSamples + " samples: " + this.heldBy);
						}
						stop(now);
					}
				}
				case STOPPING -> {
					if (!this.extra.process().isAlive()) {
						removeExtra(this.extra);
						note("%s stopped (SIGTERM) after %.1f s", this.extra.id(), since(this.stopAt, now));
						this.step = Step.RECOVERING;
					}
					else if (now - this.stopAt > PHASE_STOP_TIMEOUT_NANOS) {
						this.extra.process().kill();
						note("%s did not stop within %d s: SIGKILL", this.extra.id(), PHASE_STOP_TIMEOUT_NANOS / 1_000_000_000L);
					}
				}
				case RECOVERING -> {
					if (recovered(sample)) {
						note("recovered %.1f s after the SIGTERM", since(this.stopAt, now));
						return true;
					}
					if (now - this.stopAt > PHASE_RECOVERY_TIMEOUT_NANOS) {
						fail("not recovered within " + PHASE_RECOVERY_TIMEOUT_NANOS / 1_000_000_000L + " s after the SIGTERM");
						return true;
					}
				}
			}
			return false;
		}

		void stop(long now) {
			this.stopAt = now;
			this.extra.process().requestStop();
			event(this.extra.id(), "SIGTERM", now);
			this.step = Step.STOPPING;
		}

		@Override
		void abort() {
			try {
				this.extra.process().stop(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			removeExtra(this.extra);
		}

	}

	/**
	 * instance-4 with another wait time for five clusters, as in a rolling configuration change: the
	 * holders keep those clusters, instance-4 and the other standbys defer, every health stays 200.
	 */
	private final class MismatchPhase extends ExtraInstancePhase {

		MismatchPhase(long offset) {
			super("settings-mismatch", offset, ChaosDriver.this.demo.instance("instance-4", "instance-4", 4,
					MISMATCH_CLUSTERS.stream().map((c) -> "--polling.clusters." + c + ".wait-time=" + MISMATCH_WAIT_TIME).toList()));
		}

		@Override
		void begin(Sample sample, long now) throws IOException {
			super.begin(sample, now);
			note("instance-4 started with wait-time %s for %s (the others: 10s)", MISMATCH_WAIT_TIME, MISMATCH_CLUSTERS);
		}

		@Override
		List<String> expected() {
			return pairs(List.of("instance-1", "instance-2", "instance-3", "instance-4"), MISMATCH_CLUSTERS);
		}

		@Override
		String reason() {
			return "settings-mismatch";
		}

		@Override
		boolean reports(String reason) {
			return reason.equals("settings-mismatch") || reason.equals("renewed-despite-settings-mismatch");
		}

		@Override
		List<Instance> downInstances() {
			return ChaosDriver.this.demo.instances;
		}

		@Override
		int healthStatus() {
			return 200;
		}

		@Override
		String healthText() {
			return "DEGRADED";
		}

		@Override
		Set<String> heldDuringPhase(Sample sample) {
			// the holders keep the clusters; instance-4, with the other settings, must not hold them, nor two at once
			Set<String> held = new TreeSet<>();
			for (String cluster : MISMATCH_CLUSTERS) {
				List<String> holders = List.copyOf(sample.holders().get(cluster));
				if (holders.contains(this.extra.id()) || holders.size() > 1) {
					holders.forEach((label) -> held.add(cluster + " by " + label));
				}
			}
			return held;
		}

		@Override
		boolean recovered(Sample sample) {
			return MISMATCH_CLUSTERS.stream().noneMatch((cluster) -> sample.holders().get(cluster).isEmpty());
		}

	}

	/** A second process with the id instance-1: both refuse every cluster. */
	private final class DuplicateIdPhase extends ExtraInstancePhase {

		private int followUpsHeldByBoth;

		DuplicateIdPhase(long offset) {
			super("duplicate-instance-id", offset,
					ChaosDriver.this.demo.instance("instance-1-twin", "instance-1", 4, twinPeers(ChaosDriver.this.demo.slotPorts)));
		}

		/**
		 * The shared peer list as the twin sees it: the starter refuses to start an instance whose own
		 * entry names a port on a local address other than its JMX server's (the first instance-1's, here),
		 * so the twin gets the entries {@code instance-1} and {@code instance-4} (and {@code tick-1} and
		 * {@code tick-4}) swapped: its own entry names its own server, {@code instance-4} the first
		 * {@code instance-1}. Each of the two reaches the other, as with one shared list.
		 */
		private static List<String> twinPeers(List<int[]> slotPorts) {
			int first = slotPorts.get(0)[1];
			int twin = slotPorts.get(3)[1];
			return List.of("--polling.jmx.peers.instance-1.port=" + twin, "--polling.jmx.peers.instance-4.port=" + first,
					"--polling.jmx.peers." + TICK_PEER_PREFIX + "1.url=" + jmxUrl(twin),
					"--polling.jmx.peers." + TICK_PEER_PREFIX + "4.url=" + jmxUrl(first));
		}

		@Override
		void begin(Sample sample, long now) throws IOException {
			super.begin(sample, now);
			note("instance-1-twin started with polling.instance-id=instance-1 on the ports of the peer entry instance-4");
		}

		@Override
		boolean step(Sample sample, long now) throws Exception {
			if (this.step == Step.HOLDING && sample.holders().get(DemoDriver.JOBS_CLUSTER).containsAll(List.of("instance-1", "instance-1-twin"))) {
				this.followUpsHeldByBoth++;
			}
			boolean done = super.step(sample, now);
			if (done && this.failure == null) {
				note("FOLLOW_UPS (coordinated through the database) held by both processes with the id instance-1 in %d of the samples",
						this.followUpsHeldByBoth);
			}
			return done;
		}

		@Override
		List<String> expected() {
			return pairs(List.of("instance-1", "instance-1-twin"), JMX_CLUSTERS);
		}

		@Override
		String reason() {
			return "duplicate-instance-id";
		}

		@Override
		List<Instance> downInstances() {
			return List.of(ChaosDriver.this.demo.instances.get(0));
		}

		@Override
		Set<String> heldDuringPhase(Sample sample) {
			Set<String> held = new TreeSet<>();
			for (String cluster : JMX_CLUSTERS) {
				for (String label : sample.holders().get(cluster)) {
					if (label.equals("instance-1") || label.equals("instance-1-twin")) {
						held.add(cluster + " by " + label);
					}
				}
			}
			return held;
		}

		@Override
		boolean recovered(Sample sample) {
			return health(ChaosDriver.this.demo.instances.get(0)).status == 200;
		}

	}

	/** Each instance in turn: SIGTERM, start, wait until its health is UP. */
	private final class RollingRestartPhase extends Phase {

		private int index;

		private boolean starting;

		private long stopAt;

		private long startedAt;

		private boolean killed;

		RollingRestartPhase(long offset) {
			super("rolling-restart", offset);
		}

		@Override
		void begin(Sample sample, long now) {
			stopNext(sample, now);
		}

		private void stopNext(Sample sample, long now) {
			Instance instance = ChaosDriver.this.demo.instances.get(this.index);
			Fault fault = new Fault("restart " + (this.index + 1), "SIGTERM", "", 0, 0);
			fault.victim = instance.id();
			fault.at = now;
			for (String cluster : DemoDriver.CLUSTERS) {
				if (sample.holders().get(cluster).contains(instance.id())) {
					fault.clusters.add(cluster);
				}
			}
			ChaosDriver.this.faults.add(fault);
			ChaosDriver.this.expectedDown.add(instance);
			instance.process().requestStop();
			event(instance.id(), "SIGTERM", now);
			this.stopAt = now;
			this.starting = false;
			this.killed = false;
			ChaosDriver.this.demo.say("%s: SIGTERM %s, holder of %s", fault.label, instance.id(), fault.clusters);
		}

		@Override
		boolean step(Sample sample, long now) throws Exception {
			Instance instance = ChaosDriver.this.demo.instances.get(this.index);
			if (!this.starting) {
				if (!instance.process().isAlive()) {
					instance.process().start();
					event(instance.id(), "start", now);
					this.starting = true;
					this.startedAt = now;
				}
				else if (now - this.stopAt > PHASE_STOP_TIMEOUT_NANOS && !this.killed) {
					this.killed = true;
					instance.process().kill();
					note("%s did not stop within %d s: SIGKILL", instance.id(), PHASE_STOP_TIMEOUT_NANOS / 1_000_000_000L);
				}
				return false;
			}
			if (!instance.process().isAlive()) {
				ChaosDriver.this.expectedDown.remove(instance);
				fail(instance.id() + " ended during its start; see " + instance.process().log());
				return true;
			}
			if (sample.answered(instance.id()) && health(instance).status == 200) {
				ChaosDriver.this.expectedDown.remove(instance);
				note("%s: stopped %.1f s after the SIGTERM, health UP %.1f s after the SIGTERM", instance.id(),
						(this.startedAt - this.stopAt) / 1e9, since(this.stopAt, now));
				this.index++;
				if (this.index >= ChaosDriver.this.demo.instances.size()) {
					return true;
				}
				stopNext(sample, now);
				return false;
			}
			if (now - this.startedAt > PHASE_START_TIMEOUT_NANOS) {
				ChaosDriver.this.expectedDown.remove(instance);
				fail(instance.id() + " not UP within " + PHASE_START_TIMEOUT_NANOS / 1_000_000_000L + " s after its start");
				return true;
			}
			return false;
		}

		@Override
		void abort() {
			Instance instance = ChaosDriver.this.demo.instances.get(Math.min(this.index, ChaosDriver.this.demo.instances.size() - 1));
			ChaosDriver.this.expectedDown.remove(instance);
		}

	}

	// ---------------------------------------------------------------- the end

	/** Every tick cluster ran (its cycles are in {@code tick_cycles}). */
	private void checkTicks() {
		Connection connection = this.demo.database;
		if (connection == null) {
			this.tickFailure = "database not open";
			return;
		}
		try (Statement statement = connection.createStatement()) {
			Map<String, Integer> perCluster = new TreeMap<>();
			Map<String, Integer> perInstance = new TreeMap<>();
			try (ResultSet result = statement.executeQuery("SELECT cluster, instance_id, COUNT(*) FROM tick_cycles GROUP BY cluster, instance_id")) {
				while (result.next()) {
					perCluster.merge(result.getString(1), result.getInt(3), Integer::sum);
					perInstance.merge(result.getString(2), result.getInt(3), Integer::sum);
				}
			}
			int total = perCluster.values().stream().mapToInt(Integer::intValue).sum();
			int min = TICK_CLUSTERS.stream().mapToInt((c) -> perCluster.getOrDefault(c, 0)).min().orElse(0);
			int max = TICK_CLUSTERS.stream().mapToInt((c) -> perCluster.getOrDefault(c, 0)).max().orElse(0);
			this.tickLines.add(String.format(Locale.ROOT, "  tick cycles run                           %5d   (per cluster %d to %d; by instance %s)",
					total, min, max, perInstance));
			List<String> never = TICK_CLUSTERS.stream().filter((c) -> perCluster.getOrDefault(c, 0) == 0).toList();
			if (!never.isEmpty()) {
				this.tickFailure = "tick clusters that never ran: " + never;
			}
		}
		catch (SQLException ex) {
			this.tickFailure = "could not read tick_cycles: " + ex.getMessage();
		}
	}

	boolean ok(DemoReport report) {
		return report.ok() && this.twoHolderSamples == 0 && this.tickFailure == null && this.reconnectFailure == null
				&& tickTakeoversWithoutFault() == 0 && this.phases.size() == PHASES
				&& this.phases.stream().allMatch((p) -> p.failure == null && p.endNanos != 0);
	}

	/** Takeovers of a tick cluster (whose peer connections the idle timeout closes between two ticks) without a fault. */
	private long tickTakeoversWithoutFault() {
		return this.holderChanges.stream().filter((c) -> c.kind == Kind.WITHOUT_FAULT && TICK_CLUSTERS.contains(c.cluster)).count();
	}

	List<String> summary(DemoReport report) {
		checkTicks();
		countReconnects();
		// the demo's own takeover lines and two-holder samples do not apply: the chaos run measures both itself
		List<String> lines = new ArrayList<>(report.summary()
			.stream()
			.filter((l) -> !l.contains("samples with two holders") && !l.startsWith("  takeover"))
			.toList());
		lines.add(String.format(Locale.ROOT, "  faults injected                           %5d   (SIGKILL %d, SIGSTOP %d; SIGTERM of the rolling restart %d)",
				this.faults.size(), count("SIGKILL"), count("SIGSTOP"), count("SIGTERM")));
		for (Fault fault : this.faults) {
			StringBuilder takeovers = new StringBuilder();
			fault.takenOver.forEach((cluster, nanos) -> takeovers.append(takeovers.isEmpty() ? "" : ", ").append(cluster).append(' ')
				.append((nanos == -1L) ? "kept (resumed before a takeover)"
						: (nanos == -2L) ? "NOT taken over" : String.format(Locale.ROOT, "%.1f s", nanos / 1e9)));
			lines.add(String.format(Locale.ROOT, "  [%6.1fs] %-10s %s %s%s, held %s -> %s", seconds(fault.at), fault.label, fault.kind,
					fault.victim, fault.kind.equals("SIGTERM") ? "" : String.format(Locale.ROOT, " for %.0f s", fault.pause / 1e9),
					fault.clusters, takeovers.isEmpty() ? "-" : takeovers));
		}
		if (!this.loads.isEmpty()) {
			List<Double> sorted = new ArrayList<>(this.loads);
			sorted.sort(null);
			lines.add(String.format(Locale.ROOT, "  machine load (1-min average, every 10 s)  min %.1f median %.1f max %.1f (%d cores)",
					sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), Runtime.getRuntime().availableProcessors()));
		}
		lines.add("  takeover after SIGKILL   " + takeoverStats("SIGKILL"));
		lines.add("  takeover after SIGSTOP   " + takeoverStats("SIGSTOP"));
		lines.add("  takeover after SIGTERM   " + takeoverStats("SIGTERM"));
		for (String cluster : DemoDriver.CLUSTERS) {
			lines.add(String.format(Locale.ROOT, "  %s: no holder %.1f s, two holders %.1f s", cluster,
					this.noHolderNanos.get(cluster) / 1e9, this.twoHolderNanos.get(cluster) / 1e9));
		}
		lines.add(String.format(Locale.ROOT, "  TICK_01..TICK_20: two holders %.1f s", TICK_CLUSTERS.stream()
			.mapToLong(this.twoHolderNanos::get).sum() / 1e9));
		for (Phase phase : this.phases) {
			lines.add(String.format(Locale.ROOT, "  [%6.1fs] phase %s (%.1f s)%s", seconds(phase.startNanos), phase.name,
					((phase.endNanos != 0) ? phase.endNanos - phase.startNanos : 0) / 1e9,
					(phase.failure != null) ? ": FAILED: " + phase.failure : ""));
			phase.report.forEach((line) -> lines.add("             " + line));
		}
		lines.addAll(this.tickLines);
		if (this.tickFailure != null) {
			lines.add("  tick clusters: FAILED: " + this.tickFailure);
		}
		lines.addAll(this.reconnectLines);
		if (this.reconnectFailure != null) {
			lines.add("  idle closes: FAILED: " + this.reconnectFailure);
		}
		Map<Kind, Integer> kinds = new TreeMap<>();
		this.holderChanges.forEach((change) -> kinds.merge(change.kind, 1, Integer::sum));
		lines.add(String.format(Locale.ROOT, "  holder changes of the JMX clusters        %5d   %s", this.holderChanges.size(), kinds));
		for (HolderChange change : this.holderChanges) {
			if (change.kind == Kind.WITHOUT_FAULT) {
				lines.add(String.format(Locale.ROOT, "  [%6.1fs] without a fault: %s from %s (%s) to %s (%s; its peers %s)", seconds(change.nanos),
						change.cluster, change.from, change.fromReason, change.to, change.toReason, change.toPeers));
			}
		}
		long jmxPeriods = this.twoHolderPeriods.stream().filter((p) -> !p.cluster.equals(DemoDriver.JOBS_CLUSTER)).count();
		lines.add(String.format(Locale.ROOT, "  samples with two holders of a JMX cluster %5d   (%d periods; among instances that reach each other)",
				this.twoHolderSamples, jmxPeriods));
		lines.add(String.format(Locale.ROOT, "  samples with two holders not reaching each other %5d   (a holder had no answer from the other "
				+ "within the peer timeout: outside the guarantee; not part of the verdict)", this.unreachableTwoHolderSamples));
		lines.add(String.format(Locale.ROOT, "  samples with two holders of FOLLOW_UPS    %5d   (coordinated through the database; not part of the verdict)",
				this.followUpTwoHolderSamples));
		for (TwoHolders period : this.twoHolderPeriods) {
			lines.add(String.format(Locale.ROOT, "  [%6.1fs] %s held by %s for %d samples (%.1f s); %s; %s%s", seconds(period.startNanos),
					period.cluster, period.holders, period.samples, (period.endNanos - period.startNanos) / 1e9 + SAMPLE_MILLIS / 1000.0,
					cause(period), activity(period), (period.unreachable != null) ? "; not reaching each other: " + period.unreachable : ""));
		}
		return lines;
	}

	private long count(String kind) {
		return this.faults.stream().filter((f) -> f.kind.equals(kind)).count();
	}

	private String takeoverStats(String kind) {
		List<Long> times = new ArrayList<>();
		int kept = 0;
		for (Fault fault : this.faults) {
			if (fault.kind.equals(kind)) {
				for (long nanos : fault.takenOver.values()) {
					if (nanos > 0) {
						times.add(nanos);
					}
					else if (nanos == -1L) {
						kept++;
					}
				}
			}
		}
		if (times.isEmpty()) {
			return "none measured" + ((kept > 0) ? " (" + kept + " kept by the resumed holder)" : "");
		}
		times.sort(null);
		return String.format(Locale.ROOT, "n=%d min %.1f s median %.1f s max %.1f s%s", times.size(), times.get(0) / 1e9,
				times.get(times.size() / 2) / 1e9, times.get(times.size() - 1) / 1e9,
				(kept > 0) ? " (" + kept + " more kept by the resumed holder)" : "");
	}

	/** The latest fault or phase event of one of the holders before the period began. */
	private String cause(TwoHolders period) {
		Event latest = null;
		for (Event event : this.events) {
			if (period.holders.contains(event.label) && event.nanos <= period.startNanos) {
				latest = event;
			}
		}
		if (latest == null) {
			return "no fault or phase event of either holder before it";
		}
		return String.format(Locale.ROOT, "after %s %s at %.1f s (%.1f s before)", latest.kind, latest.label, seconds(latest.nanos),
				(period.startNanos - latest.nanos) / 1e9);
	}

	/** Orders and inbox duplicates in the period's mailbox, or tick cycles of the period's tick cluster, per instance. */
	private String activity(TwoHolders period) {
		Connection connection = this.demo.database;
		if (connection == null) {
			return "database not open";
		}
		Timestamp from = new Timestamp(period.startEpochMillis - 1000);
		Timestamp to = new Timestamp(period.endEpochMillis + 2000);
		try {
			if (period.cluster.startsWith("MAILBOX_")) {
				String mailbox = "%" + period.cluster.substring(period.cluster.length() - 1);
				return "in the mailbox from 1 s before to 2 s after: orders by fetcher "
						+ grouped(connection, "SELECT fetched_by, COUNT(*) FROM orders WHERE processed_at BETWEEN ? AND ? "
								+ "AND mailbox LIKE ? GROUP BY fetched_by", from, to, mailbox)
						+ ", inbox duplicates " + grouped(connection, "SELECT fetched_by, COUNT(*) FROM duplicate_fetches "
								+ "WHERE fetched_at BETWEEN ? AND ? AND mailbox LIKE ? GROUP BY fetched_by", from, to, mailbox);
			}
			if (period.cluster.startsWith("TICK_")) {
				return "tick cycles from 1 s before to 2 s after: " + grouped(connection, "SELECT instance_id, COUNT(*) FROM tick_cycles "
						+ "WHERE started_at BETWEEN ? AND ? AND cluster = ? GROUP BY instance_id", from, to, period.cluster);
			}
			return "-";
		}
		catch (SQLException ex) {
			return "database: " + ex.getMessage();
		}
	}

	private static String grouped(Connection connection, String sql, Timestamp from, Timestamp to, String match) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setTimestamp(1, from);
			statement.setTimestamp(2, to);
			statement.setString(3, match);
			StringBuilder text = new StringBuilder();
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					text.append(text.isEmpty() ? "" : " ").append(result.getString(1)).append('=').append(result.getInt(2));
				}
			}
			return text.isEmpty() ? "none" : text.toString();
		}
	}

	String lastLine(DemoReport report, boolean ok) {
		long noHolder = this.noHolderNanos.values().stream().mapToLong(Long::longValue).sum();
		long withoutFault = this.holderChanges.stream().filter((c) -> c.kind == Kind.WITHOUT_FAULT).count();
		long jmxPeriods = this.twoHolderPeriods.stream().filter((p) -> !p.cluster.equals(DemoDriver.JOBS_CLUSTER)).count();
		String figures = String.format(Locale.ROOT,
				"policy=%s seed=%d sent=%d processed=%d lost=%d duplicate-rows=%d duplicate-fetches=%d confirmations=%d "
						+ "duplicate-confirmations=%d follow-ups=%d duplicate-follow-ups=%d faults=%d phases=%d/3 "
						+ "two-holder-samples=%d (%d periods) unreachable-two-holder-samples=%d takeovers-without-fault=%d "
						+ "tick-reconnects=%d no-holder=%.1fs",
				this.policy, this.seed, report.sent(), report.processed(), report.lost(), report.duplicateRows(),
				report.duplicateFetches(), report.confirmations().confirmed(), report.confirmations().duplicates(),
				report.followUps().checked(), report.followUps().duplicates(), this.faults.size(),
				this.phases.stream().filter((p) -> p.failure == null && p.endNanos != 0).count(), this.twoHolderSamples, jmxPeriods,
				this.unreachableTwoHolderSamples, withoutFault, this.tickReconnects, noHolder / 1e9);
		if (ok) {
			return "chaos: OK " + figures;
		}
		List<String> reasons = new ArrayList<>();
		if (report.failure() != null) {
			reasons.add(report.failure());
		}
		if (!report.ok() && report.failure() == null) {
			reasons.add("mails, confirmations or follow-ups do not add up");
		}
		if (this.twoHolderSamples > 0) {
			reasons.add(this.twoHolderSamples + " samples with two holders");
		}
		this.phases.stream().filter((p) -> p.failure != null).forEach((p) -> reasons.add(p.name + ": " + p.failure));
		if (this.phases.size() < PHASES) {
			reasons.add("only " + this.phases.size() + " of " + PHASES + " phases ran");
		}
		if (this.tickFailure != null) {
			reasons.add(this.tickFailure);
		}
		if (this.reconnectFailure != null) {
			reasons.add(this.reconnectFailure);
		}
		if (tickTakeoversWithoutFault() > 0) {
			reasons.add(tickTakeoversWithoutFault() + " tick cluster takeovers without a fault");
		}
		return "chaos: FAILED " + figures + " (" + String.join("; ", reasons) + ")";
	}

	// ---------------------------------------------------------------- values

	/** One planned random fault, or a SIGTERM of the rolling restart, and what was seen after it. */
	private static final class Fault implements Planned {

		final String label;

		final String kind;

		final String cluster;

		final long offset;

		final long pause;

		String victim = "";

		long at;

		long resumedAt;

		long takeoverNanos;

		final List<String> clusters = new ArrayList<>();

		final Map<String, Long> takenOver = new LinkedHashMap<>();

		Fault(String label, String kind, String cluster, long offset, long pause) {
			this.label = label;
			this.kind = kind;
			this.cluster = cluster;
			this.offset = offset;
			this.pause = pause;
		}

		@Override
		public long offset() {
			return this.offset;
		}

	}

	/** Consecutive samples in which two answering instances said they hold one cluster. */
	private static final class TwoHolders {

		final String cluster;

		final long startNanos;

		final long startEpochMillis;

		final List<String> holders;

		long endNanos;

		long endEpochMillis;

		int samples;

		/** How a holder's last decision missed the other holder, or null while they reach each other. */
		String unreachable;

		TwoHolders(String cluster, long startNanos, long startEpochMillis, List<String> holders) {
			this.cluster = cluster;
			this.startNanos = startNanos;
			this.startEpochMillis = startEpochMillis;
			this.holders = holders;
		}

	}

	/**
	 * One sample.
	 * @param holders per sampled cluster, the answering instances that hold it
	 * @param statuses each answering instance's endpoint, by label
	 */
	private record Sample(Map<String, List<String>> holders, Map<String, JsonNode> statuses) {

		boolean answered(String label) {
			return this.statuses.containsKey(label);
		}

		JsonNode cluster(String label, String cluster) {
			JsonNode status = this.statuses.get(label);
			return (status != null) ? status.path("clusters").path(cluster) : tools.jackson.databind.node.MissingNode.getInstance();
		}

		/** The outcome of the instance's last decision of the cluster ({@code granted}, {@code refused}), or "". */
		String outcome(String label, String cluster) {
			return cluster(label, cluster).path("lastDecision").path("outcome").asString("");
		}

		/** The reason of the instance's last decision of the cluster, or "" when unknown. */
		String reason(String label, String cluster) {
			return cluster(label, cluster).path("lastDecision").path("reason").asString("");
		}

		/** What the instance's last decision of the cluster saw of each peer, e.g. {@code instance-1=answered}. */
		String peerStates(String label, String cluster) {
			List<String> states = new ArrayList<>();
			for (JsonNode peer : cluster(label, cluster).path("peers")) {
				states.add(peer.path("id").asString("?") + "=" + peer.path("state").asString("?")
						+ (peer.path("fault").isString() ? "/" + peer.path("fault").asString() : ""));
			}
			return states.toString();
		}

	}

	/** A fault or phase event of one instance (SIGKILL, SIGSTOP, SIGCONT, restart, SIGTERM, start, pause, resume). */
	private record Event(String label, String kind, long nanos) {
	}

	private record Health(int status, String body) {
	}

	/** What a change of a cluster's holder is put down to. */
	private enum Kind {

		HANDOVER, AFTER_FAULT, OWN_STOP, WITHOUT_FAULT;

		@Override
		public String toString() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

	/** A JMX cluster got a holder other than its previous one. */
	private record HolderChange(long nanos, String cluster, String from, String to, String fromReason, Kind kind, String toReason,
			String toPeers) {
	}

}
