package dev.polling.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import dev.polling.core.Decision;
import dev.polling.core.Decision.Reason;
import dev.polling.core.PollingManager;
import dev.polling.core.PollingSettings;
import dev.polling.jdbc.test.LogCapture;
import net.javacrumbs.shedlock.core.LockProvider;

/**
 * {@link ShedLockCoordinator} on a real store, through a real ShedLock provider: one subclass per
 * store. Every instance has a coordinator and a provider of its own (its own connections), as
 * separate application instances have; all run in this JVM, so they share the host name, which is
 * how ShedLock's JDBC providers tell lock owners apart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ShedLockContractTest {

	/** The failover period (lockAtMostFor); its safety margin is 300 ms. */
	static final Duration FAILOVER = Duration.ofSeconds(3);

	/** The decision interval of the instances that keep ticking. */
	static final Duration TICK = Duration.ofMillis(100);

	/** Time a request to the store and the test's own scheduling may add to a bound on a loaded machine. */
	static final Duration SLACK = Duration.ofSeconds(1);

	private static final AtomicInteger clusters = new AtomicInteger();

	@BeforeAll
	final void startTheStore() throws Exception {
		startStore();
		// the first request of a client pays for its connection and class loading (seconds on a loaded
		// machine, longer than the lease minus its margin): paid here, not by whichever test runs first
		coordinator().build().verifyExtendSupport();
	}

	@AfterAll
	final void stopTheStore() throws Exception {
		closeStore();
	}

	/** Starts the store (once per class). */
	abstract void startStore() throws Exception;

	/** Stops the store for good. */
	abstract void closeStore() throws Exception;

	/** Makes the store unreachable: its server process stops. */
	abstract void stopServer() throws Exception;

	/** Brings the server back on the same address. */
	abstract void restartServer() throws Exception;

	/** Makes the store forget one lock, as an operator or an eviction does: the row deleted, the key removed. */
	abstract void forgetLock(String lockName) throws Exception;

	/** Makes the store forget every lock: the table truncated, the database flushed. */
	abstract void forgetAllLocks() throws Exception;

	/** A provider of its own, as another application instance has, in the recommended configuration. */
	abstract LockProvider newProvider();

	/**
	 * A provider of its own whose extend and unlock cannot tell this instance from the others (the
	 * hazard the local expiry guards against): JDBC's default owner, the host name, is the same for
	 * every instance here; Redis without {@code safeUpdate}.
	 */
	abstract LockProvider newOwnerBlindProvider();

	/** What {@link ShedLockCoordinator#describe()} starts with for this store's provider. */
	abstract String describedAs();

	ShedLockCoordinator.Builder coordinator() {
		return ShedLockCoordinator.builder(newProvider()).failoverPeriod(FAILOVER);
	}

	Instance instance(String id, ClusterDefinition cluster) {
		return new Instance(id, cluster, coordinator().build());
	}

	Instance ownerBlindInstance(String id, ClusterDefinition cluster) {
		return new Instance(id, cluster, ShedLockCoordinator.builder(newOwnerBlindProvider()).failoverPeriod(FAILOVER).build());
	}

	static ClusterDefinition newCluster(String name) {
		return ClusterDefinition.of(name + "_" + clusters.incrementAndGet(), Duration.ofSeconds(10));
	}

	@Test
	void verifyExtendSupportPassesForTheStoresProvider() {
		ShedLockCoordinator coordinator = coordinator().build();
		coordinator.verifyExtendSupport();
		assertThat(coordinator.describe()).isEqualTo("ShedLock " + describedAs() + ", locks 'polling-*'");
	}

	@Test
	void threeInstancesTickingTogetherKeepOneHolderWithoutPingPong() throws Exception {
		ClusterDefinition cluster = newCluster("TOGETHER");
		List<Instance> instances = List.of(instance("a", cluster), instance("b", cluster), instance("c", cluster));
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			String holder = null;
			int judged = 0;
			for (int round = 0; round < 100; round++) {
				long roundStart = System.nanoTime();
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Claim>> claims = new ArrayList<>();
				for (Instance instance : instances) {
					claims.add(pool.submit(() -> {
						go.await();
						return instance.acquire();
					}));
				}
				go.countDown();
				List<String> granted = new ArrayList<>();
				for (int i = 0; i < 3; i++) {
					Claim claim = claims.get(i).get();
					assertThat(claim.isUnavailable()).as("round %d: %s", round, claim).isFalse();
					assertThat(claim.epoch()).isEqualTo(-1);
					if (claim.granted()) {
						assertThat(claim.holder()).isEqualTo(instances.get(i).id);
						granted.add(instances.get(i).id);
					}
					else {
						assertThat(claim.holder()).as("the holder is unknown to ShedLock").isNull();
					}
				}
				// a round longer than the lease minus its margin is several ticks (a starved machine): not judged
				if (System.nanoTime() - roundStart >= FAILOVER.minus(ShedLockCoordinator.safetyMargin(FAILOVER)).toNanos()) {
					holder = null;
					continue;
				}
				judged++;
				assertThat(granted).as("round %d", round).hasSize(1);
				if (holder == null) {
					holder = granted.get(0);
				}
				assertThat(granted).as("no ping-pong, round %d", round).containsExactly(holder);
				Thread.sleep(10);
			}
			assertThat(judged).as("rounds within the failover period").isGreaterThanOrEqualTo(50);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aKilledHolderIsReplacedWithinTheFailoverPeriodPlusOneTick() throws Exception {
		ClusterDefinition cluster = newCluster("KILLED");
		Instance a = instance("a", cluster);
		Instance b = instance("b", cluster);
		assertThat(a.acquire().granted()).isTrue();
		Thread.sleep(TICK.toMillis());
		long lastRenewal = System.nanoTime();
		assertThat(a.acquire().renewed()).isTrue();
		// a is killed: it never decides nor releases again; b keeps ticking
		long askedAt;
		long answeredAt;
		while (true) {
			askedAt = System.nanoTime();
			Claim claim = b.acquire();
			answeredAt = System.nanoTime();
			assertThat(claim.isUnavailable()).isFalse();
			if (claim.granted()) {
				assertThat(claim.renewed()).isFalse();
				break;
			}
			assertThat(Duration.ofNanos(answeredAt - lastRenewal)).as("b still refused").isLessThan(FAILOVER.multipliedBy(3));
			Thread.sleep(TICK.toMillis());
		}
		// not before the lease the store gave a's last renewal ended, which began after lastRenewal
		assertThat(Duration.ofNanos(answeredAt - lastRenewal)).isGreaterThanOrEqualTo(FAILOVER.minusMillis(50));
		// the documented bound: the failover period plus one tick (plus the requests' own time)
		assertThat(Duration.ofNanos(askedAt - lastRenewal)).isLessThanOrEqualTo(FAILOVER.plus(TICK).plus(SLACK));
	}

	/**
	 * The store forgets the holder's lock (its row deleted, its key removed) and the holder is killed
	 * right after its last renewal: a peer that keeps ticking, and was refused before (so a
	 * storage-based provider has cached that the row exists), takes over within the failover period
	 * plus one tick of that renewal, the bound of a killed holder.
	 */
	@Test
	void aLockForgottenUnderAKilledHolderIsTakenOverWithinTheFailoverPeriodPlusOneTick() throws Exception {
		ClusterDefinition cluster = newCluster("FORGOTTEN");
		Instance a = instance("a", cluster);
		Instance b = instance("b", cluster);
		assertThat(a.acquire().granted()).isTrue();
		for (int i = 0; i < 3; i++) {
			assertThat(b.acquire().granted()).as("b is refused while a holds, tick %d", i).isFalse();
			Thread.sleep(TICK.toMillis());
		}
		long lastRenewal = System.nanoTime();
		assertThat(a.acquire().renewed()).isTrue();
		forgetLock(a.coordinator.lockName(cluster.id()));
		// a is killed: it never decides nor releases again; b keeps ticking
		Duration bound = FAILOVER.plus(TICK).plus(SLACK);
		while (true) {
			long askedAt = System.nanoTime();
			Claim claim = b.acquire();
			assertThat(claim.isUnavailable()).as("%s", claim).isFalse();
			if (claim.granted()) {
				assertThat(claim.renewed()).isFalse();
				assertThat(Duration.ofNanos(askedAt - lastRenewal)).as("takeover after a's last renewal").isLessThanOrEqualTo(bound);
				System.err.printf("[failover] %s: lock forgotten under a killed holder, taken over %d ms after its last renewal%n",
						describedAs(), Duration.ofNanos(System.nanoTime() - lastRenewal).toMillis());
				break;
			}
			assertThat(Duration.ofNanos(System.nanoTime() - lastRenewal))
				.as("b still refused after the failover period plus one tick: the store forgot a's lock and nobody holds it")
				.isLessThanOrEqualTo(bound);
			Thread.sleep(TICK.toMillis());
		}
		for (int i = 0; i < 3; i++) {
			Thread.sleep(TICK.toMillis());
			assertThat(b.acquire().renewed()).as("b keeps it, tick %d", i).isTrue();
		}
	}

	/**
	 * The store forgets every lock (the table truncated, the database flushed) while the holder and
	 * a peer keep ticking: within the failover period plus one tick one of them holds the cluster
	 * again, and only one.
	 */
	@Test
	void afterTheStoreForgotEveryLockOneOfTheTickingInstancesHoldsAgainWithinTheFailoverPeriodPlusOneTick() throws Exception {
		ClusterDefinition cluster = newCluster("TRUNCATED");
		Instance a = instance("a", cluster);
		Instance b = instance("b", cluster);
		assertThat(a.acquire().granted()).isTrue();
		for (int i = 0; i < 3; i++) {
			assertThat(b.acquire().granted()).as("b is refused while a holds, tick %d", i).isFalse();
			assertThat(a.acquire().renewed()).isTrue();
			Thread.sleep(TICK.toMillis());
		}
		forgetAllLocks();
		long forgotten = System.nanoTime();
		Duration bound = FAILOVER.plus(TICK).plus(SLACK);
		Instance holder = null;
		while (holder == null) {
			for (Instance instance : List.of(a, b)) {
				Claim claim = instance.acquire();
				assertThat(claim.isUnavailable()).as("%s", claim).isFalse();
				if (claim.granted()) {
					holder = instance;
					System.err.printf("[failover] %s: every lock forgotten, %s holds again %d ms later%n", describedAs(), instance.id,
							Duration.ofNanos(System.nanoTime() - forgotten).toMillis());
					break;
				}
			}
			assertThat(Duration.ofNanos(System.nanoTime() - forgotten))
				.as("nobody holds the cluster since the store forgot its lock").isLessThanOrEqualTo(bound);
			Thread.sleep(TICK.toMillis());
		}
		Instance other = (holder == a) ? b : a;
		for (int i = 0; i < 5; i++) {
			assertThat(holder.acquire().renewed()).as("the new holder %s renews, tick %d", holder.id, i).isTrue();
			assertThat(other.acquire().granted()).as("%s is refused, tick %d", other.id, i).isFalse();
			Thread.sleep(TICK.toMillis());
		}
	}

	@Test
	void aFrozenHolderIsRefusedWhenItResumesAndDoesNotDisturbTheNewHolder() throws Exception {
		ClusterDefinition cluster = newCluster("FROZEN");
		Instance a = ownerBlindInstance("a", cluster);
		Instance b = ownerBlindInstance("b", cluster);
		Instance c = ownerBlindInstance("c", cluster);
		Instance holder = freezeHolderUntilTakenOver(a, b, c);
		Instance other = (holder == b) ? c : b;
		// a resumes, and runs its next decision and a release: both must leave the new holder's lock alone
		Claim late = a.acquire();
		assertThat(late.granted()).as("the frozen holder's next decision").isFalse();
		assertThat(late.isUnavailable()).isFalse();
		assertThat(late.holder()).isNull();
		a.release();
		for (int i = 0; i < 5; i++) {
			Claim renewal = holder.acquire();
			assertThat(renewal.granted()).as("the new holder renews, tick %d", i).isTrue();
			assertThat(renewal.renewed()).isTrue();
			assertThat(other.acquire().granted()).as("nobody else takes it, tick %d", i).isFalse();
			assertThat(a.acquire().granted()).as("nor the resumed one, tick %d", i).isFalse();
			Thread.sleep(TICK.toMillis());
		}
	}

	/**
	 * Shows what the local expiry guards against, and that the test above fails without it: a
	 * coordinator without the guard, frozen past its lease, extends the new holder's lock (ShedLock
	 * matches the owner by host name for JDBC, not at all for Redis without safeUpdate) and so holds
	 * the cluster beside it, and its release clears that lock so that a third instance takes it too.
	 */
	@Test
	void withoutTheLocalExpiryGuardAFrozenHolderWouldHoldBesideTheNewHolder() throws Exception {
		ClusterDefinition cluster = newCluster("UNGUARDED");
		Instance a = new Instance("a", cluster,
				ShedLockCoordinator.builder(newOwnerBlindProvider()).failoverPeriod(FAILOVER).withoutLocalExpiryGuard().build());
		Instance b = ownerBlindInstance("b", cluster);
		Instance c = ownerBlindInstance("c", cluster);
		Instance holder = freezeHolderUntilTakenOver(a, b, c);
		Instance other = (holder == b) ? c : b;
		assertThat(a.acquire().granted()).as("the unguarded frozen holder extends the new holder's lock").isTrue();
		a.release();
		assertThat(other.acquire().granted()).as("its release cleared the new holder's lock, so a third takes it").isTrue();
		assertThat(holder.acquire().granted()).as("while the new holder, within its local lease, renews too").isTrue();
	}

	/**
	 * a holds, then freezes for longer than the failover period while b and c tick; one of them takes
	 * over (whichever asks first after the lease ended) and keeps renewing, the other is refused.
	 * @return the new holder
	 */
	private static Instance freezeHolderUntilTakenOver(Instance a, Instance b, Instance c) throws InterruptedException {
		assertThat(a.acquire().granted()).isTrue();
		Thread.sleep(TICK.toMillis());
		assertThat(a.acquire().renewed()).isTrue();
		long frozenSince = System.nanoTime();
		Instance holder = null;
		while (holder == null || System.nanoTime() - frozenSince < FAILOVER.plus(TICK.multipliedBy(3)).toNanos()) {
			for (Instance instance : List.of(b, c)) {
				Claim claim = instance.acquire();
				assertThat(claim.isUnavailable()).isFalse();
				if (holder == null && claim.granted()) {
					holder = instance;
				}
				else if (holder != null) {
					assertThat(claim.granted()).as("%s, the holder being %s", instance.id, holder.id).isEqualTo(instance == holder);
					assertThat(claim.renewed()).isEqualTo(instance == holder);
				}
			}
			assertThat(Duration.ofNanos(System.nanoTime() - frozenSince)).isLessThan(FAILOVER.multipliedBy(3));
			Thread.sleep(TICK.toMillis());
		}
		return holder;
	}

	@Test
	void releaseLetsAnotherInstanceTakeItAtItsNextDecision() {
		ClusterDefinition cluster = newCluster("RELEASE");
		Instance a = instance("a", cluster);
		Instance b = instance("b", cluster);
		assertThat(a.acquire().granted()).isTrue();
		assertThat(b.acquire().granted()).isFalse();
		a.release();
		Claim next = b.acquire();
		assertThat(next.granted()).isTrue();
		assertThat(next.renewed()).isFalse();
		assertThat(a.acquire().granted()).isFalse();
		a.release(); // not holding: nothing to do, b keeps it
		assertThat(b.acquire().renewed()).isTrue();
	}

	@Test
	void anUnavailableStoreIsAnsweredAsUnavailableAndRecoversByItself() throws Exception {
		ClusterDefinition cluster = newCluster("OUTAGE");
		Instance a = instance("a", cluster);
		Instance b = instance("b", cluster);
		assertThat(a.acquire().granted()).isTrue();
		assertThat(b.acquire().granted()).isFalse();
		try (LogCapture log = LogCapture.start()) {
			stopServer();
			try {
				for (int i = 0; i < 3; i++) {
					for (Instance instance : List.of(a, b)) {
						Claim claim = instance.acquire();
						assertThat(claim.isUnavailable()).as("%s during the outage: %s", instance.id, claim).isTrue();
						assertThat(claim.granted()).isFalse();
						assertThat(claim.failure()).startsWith("ShedLock " + describedAs()).contains("'polling-" + cluster.id() + "'");
					}
				}
			}
			finally {
				restartServer();
			}
			// a (it kept its lock locally) or b: one of them holds the cluster again, by itself
			long back = System.nanoTime();
			Instance holder = null;
			while (holder == null) {
				assertThat(Duration.ofNanos(System.nanoTime() - back)).as("recovery").isLessThan(FAILOVER.multipliedBy(4));
				for (Instance instance : List.of(a, b)) {
					Claim claim = instance.acquire();
					if (claim.granted() && holder == null) {
						holder = instance;
					}
				}
				Thread.sleep(TICK.toMillis());
			}
			for (int i = 0; i < 5; i++) {
				assertThat(holder.acquire().renewed()).isTrue();
				assertThat(((holder == a) ? b : a).acquire().granted()).isFalse();
			}
			assertThat(log.lines("WARN", "dev.polling.shedlock", "Cluster '" + cluster.id() + "'").stream()
				.filter((line) -> line.contains("refusing until the store answers")))
				.as("one warning per instance for the outage").hasSize(2);
			assertThat(log.lines("INFO", "dev.polling.shedlock", "answers again")).as("one per instance").hasSize(2);
		}
	}

	/** Through the core: the decisions a polling manager makes with the coordinator. */
	@Test
	void decisionsOfPollingManagersCoordinatedThroughShedLock() {
		ClusterDefinition cluster = newCluster("MANAGERS");
		try (PollingManager a = manager("a", cluster); PollingManager b = manager("b", cluster)) {
			assertThat(a.decide(cluster.id()).reason()).isEqualTo(Reason.NO_ACTIVE_PEER);
			Decision refused = b.decide(cluster.id());
			assertThat(refused.reason()).isEqualTo(Reason.PEER_ACTIVE);
			assertThat(refused.peers().get(0).instanceId()).as("ShedLock does not tell the holder").isNull();
			assertThat(a.decide(cluster.id()).reason()).isEqualTo(Reason.RENEWED);
			assertThat(a.fencingToken(cluster.id())).as("no fencing token from ShedLock").isEmpty();
			a.pause(cluster.id());
			assertThat(b.decide(cluster.id()).reason()).as("a's pause released the lock").isEqualTo(Reason.NO_ACTIVE_PEER);
			assertThat(b.isHolding(cluster.id())).isTrue();
		}
	}

	private PollingManager manager(String id, ClusterDefinition cluster) {
		return PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId(id))
			.cluster(cluster)
			.coordinator(cluster.id(), coordinator().build())
			.build();
	}

	@Test
	void verifyExtendSupportDoesNotFailWhileTheStoreIsDownAndChecksOnTheFirstGrant() throws Exception {
		ClusterDefinition cluster = newCluster("PROBE");
		ShedLockCoordinator coordinator = coordinator().build();
		stopServer();
		try {
			coordinator.verifyExtendSupport();
		}
		finally {
			restartServer();
		}
		Instance a = new Instance("a", cluster, coordinator);
		long back = System.nanoTime();
		Claim claim = a.acquire();
		while (claim.isUnavailable()) {
			assertThat(Duration.ofNanos(System.nanoTime() - back)).as("recovery").isLessThan(FAILOVER.multipliedBy(4));
			Thread.sleep(TICK.toMillis());
			claim = a.acquire();
		}
		assertThat(claim.granted()).isTrue();
		assertThat(a.acquire().renewed()).isTrue();
	}

	/** An application instance: its id and coordinator. */
	static final class Instance {

		final String id;

		final ClusterDefinition cluster;

		final ShedLockCoordinator coordinator;

		Instance(String id, ClusterDefinition cluster, ShedLockCoordinator coordinator) {
			this.id = id;
			this.cluster = cluster;
			this.coordinator = coordinator;
		}

		Claim acquire() {
			return this.coordinator.acquire(this.cluster, this.id);
		}

		void release() {
			this.coordinator.release(this.cluster, this.id);
		}

	}

}
