package dev.polling.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import dev.polling.jdbc.test.LogCapture;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/**
 * {@link ShedLockCoordinator} on an in-memory provider with a virtual clock: the builder, the
 * extend check, and the local expiry. The behaviour on real stores is in {@link ShedLockContractTest}.
 */
class ShedLockCoordinatorTest {

	private static final Duration FAILOVER = Duration.ofSeconds(10);

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("UNIT", Duration.ofSeconds(10));

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	@Test
	void builderErrorsNameTheArgumentTheValueAndTheFix() {
		assertThatThrownBy(() -> ShedLockCoordinator.builder(null)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("provider is null")
			.hasMessageContaining("LockProvider");
		TestProvider provider = new TestProvider(true);
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).failoverPeriod(Duration.ZERO))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("failoverPeriod PT0S must be positive")
			.hasMessageContaining("e.g.");
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).failoverPeriod(Duration.ofSeconds(-1)))
			.hasMessageContaining("failoverPeriod PT-1S must be positive");
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).failoverPeriod(null))
			.hasMessageContaining("failoverPeriod null must be positive");
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).build()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("failoverPeriod is not set")
			.hasMessageContaining("lockAtMostFor");
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).lockNamePrefix("a b"))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("lockNamePrefix 'a b'")
			.hasMessageContaining("without whitespace");
		assertThatThrownBy(() -> ShedLockCoordinator.builder(provider).lockNamePrefix(null)).hasMessageContaining("lockNamePrefix null");
	}

	@Test
	void mapsNamesAndDescribesTheStoreWithoutCredentials() {
		ShedLockCoordinator coordinator = ShedLockCoordinator.builder(new TestProvider(true))
			.failoverPeriod(FAILOVER)
			.lockNamePrefix("app-")
			.build();
		assertThat(coordinator.lockName("MAIL")).isEqualTo("app-MAIL");
		assertThat(coordinator.describe()).isEqualTo("ShedLock TestProvider, locks 'app-*'");
		assertThat(coordinator.failoverPeriod()).isEqualTo(FAILOVER);
		assertThat(ShedLockCoordinator.builder(new TestProvider(true)).failoverPeriod(FAILOVER).build().lockName("MAIL"))
			.isEqualTo("polling-MAIL");
	}

	@Test
	void distinctClusterIdsWhoseLockNamesAStoreCouldTakeForOneAreAStartErrorNamingBothIds() {
		ShedLockCoordinator coordinator = coordinator(new TestProvider(true));
		String longId = "A".repeat(56);
		coordinator.verifyLockNames(List.of("MAIL", "ORDERS", "MAIL_2", "MAIL-2", longId, longId.substring(1) + "B"));
		assertThatThrownBy(() -> coordinator.verifyLockNames(List.of("MAIL", "ORDERS", "mail")))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("clusters 'MAIL' and 'mail'")
			.hasMessageContaining("'polling-MAIL' and 'polling-mail'")
			.hasMessageContaining("case")
			.hasMessageContaining("rename one of the clusters");
		assertThatThrownBy(() -> coordinator.verifyLockNames(List.of("CAFÉ", "CAFE")))
			.hasMessageContaining("clusters 'CAFÉ' and 'CAFE'");
		assertThatThrownBy(() -> coordinator.verifyLockNames(List.of("MAIL ", "MAIL")))
			.hasMessageContaining("clusters 'MAIL ' and 'MAIL'");
		// ShedLock's table holds 64 characters: names that agree up to there are one row where the store cuts them
		assertThatThrownBy(() -> coordinator.verifyLockNames(List.of(longId + "_IN", longId + "_OUT")))
			.hasMessageContaining("clusters '" + longId + "_IN' and '" + longId + "_OUT'")
			.hasMessageContaining("64 characters");
	}

	@Test
	void aClusterWhoseLockNameCollidesWithAnotherClustersIsRefusedAsUnavailableNotGivenTheOthersLock() {
		TestProvider provider = new TestProvider(true);
		ShedLockCoordinator coordinator = coordinator(provider);
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).isTrue();
		ClusterDefinition twin = ClusterDefinition.of("unit", Duration.ofSeconds(10));
		try (LogCapture log = LogCapture.start()) {
			for (int i = 0; i < 3; i++) {
				Claim claim = coordinator.acquire(twin, "b");
				assertThat(claim.isUnavailable()).isTrue();
				assertThat(claim.failure()).contains("clusters 'UNIT' and 'unit'");
			}
			assertThat(log.lines("ERROR", "dev.polling.shedlock", "clusters 'UNIT' and 'unit'")).as("logged once").hasSize(1);
		}
		int locks = provider.locks;
		coordinator.release(twin, "b");
		assertThat(coordinator.acquire(twin, "a").isUnavailable()).isTrue();
		assertThat(provider.locks).as("the twin never asks the store").isEqualTo(locks);
		assertThat(coordinator.acquire(CLUSTER, "a").renewed()).as("the first cluster keeps its lock").isTrue();
	}

	@Test
	void theSafetyMarginIsATenthOfTheFailoverPeriodAtMostOneSecond() {
		assertThat(ShedLockCoordinator.safetyMargin(Duration.ofSeconds(3))).isEqualTo(Duration.ofMillis(300));
		assertThat(ShedLockCoordinator.safetyMargin(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(1));
		assertThat(ShedLockCoordinator.safetyMargin(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void grantsRenewsAndReleasesThroughLockExtendAndUnlock() {
		TestProvider provider = new TestProvider(true);
		ShedLockCoordinator coordinator = coordinator(provider);
		Claim granted = coordinator.acquire(CLUSTER, "a");
		assertThat(granted).isEqualTo(new Claim(true, false, "a", -1, -1, null));
		assertThat(provider.lastConfiguration.getName()).isEqualTo("polling-UNIT");
		assertThat(provider.lastConfiguration.getLockAtMostFor()).isEqualTo(FAILOVER);
		assertThat(provider.lastConfiguration.getLockAtLeastFor()).isEqualTo(Duration.ZERO);
		assertThat(coordinator.acquire(CLUSTER, "b")).isEqualTo(new Claim(false, false, null, -1, -1, null));
		assertThat(coordinator.acquire(CLUSTER, "a")).isEqualTo(new Claim(true, true, "a", -1, -1, null));
		assertThat(provider.extends_).isEqualTo(2); // the first grant's check, and the renewal
		coordinator.release(CLUSTER, "a");
		assertThat(provider.unlocks).isEqualTo(1);
		assertThat(coordinator.acquire(CLUSTER, "b").granted()).isTrue();
	}

	@Test
	void verifyExtendSupportRefusesAProviderThatCannotExtendAndUnlocksItsProbe() {
		TestProvider provider = new TestProvider(false);
		ShedLockCoordinator coordinator = coordinator(provider);
		assertThatThrownBy(coordinator::verifyExtendSupport).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining(TestProvider.class.getName())
			.hasMessageContaining("cannot extend a lock")
			.hasMessageContaining("ExtensibleLockProvider");
		assertThat(provider.lastConfiguration.getName()).isEqualTo("polling-extend-probe");
		assertThat(provider.unlocks).isEqualTo(1);
		assertThat(provider.lockedUntil).isLessThanOrEqualTo(this.clock.get());
		assertThat(coordinator.acquire(CLUSTER, "a").failure()).contains("cannot extend a lock");
	}

	@Test
	void whenTheStoreIsDownAtTheCheckItHappensOnTheFirstGrant() {
		TestProvider provider = new TestProvider(false);
		provider.failLocks = 1;
		ShedLockCoordinator coordinator = coordinator(provider);
		try (LogCapture log = LogCapture.start()) {
			coordinator.verifyExtendSupport();
			assertThat(log.lines("WARN", "dev.polling.shedlock", "checking on the first grant")).hasSize(1);
			Claim first = coordinator.acquire(CLUSTER, "a");
			assertThat(first.granted()).isFalse();
			assertThat(first.failure()).contains(TestProvider.class.getName()).contains("cannot extend a lock");
			assertThat(provider.unlocks).as("the lock taken is given back").isEqualTo(1);
			int locks = provider.locks;
			assertThat(coordinator.acquire(CLUSTER, "b").failure()).contains("cannot extend a lock");
			assertThat(provider.locks).as("no further lock taken").isEqualTo(locks);
			assertThat(log.lines("ERROR", "dev.polling.shedlock", "cannot extend a lock")).hasSize(1);
		}
	}

	@Test
	void aLockWhoseLocalExpiryPassedIsNeitherExtendedNorUnlocked() {
		TestProvider provider = new TestProvider(true);
		ShedLockCoordinator coordinator = coordinator(provider);
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).isTrue();
		int extendsBefore = provider.extends_;
		// frozen for the failover period less the margin: the local expiry has passed
		this.clock.addAndGet(FAILOVER.minus(ShedLockCoordinator.safetyMargin(FAILOVER)).toNanos());
		coordinator.release(CLUSTER, "a");
		assertThat(provider.unlocks).isZero();
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).as("the store's lease has not ended yet").isFalse();
		assertThat(provider.extends_).isEqualTo(extendsBefore);
		this.clock.addAndGet(ShedLockCoordinator.safetyMargin(FAILOVER).toNanos());
		assertThat(coordinator.acquire(CLUSTER, "a")).as("a fresh lock").isEqualTo(new Claim(true, false, "a", -1, -1, null));
	}

	@Test
	void aStoreFaultOnExtendKeepsTheLockOnlyUntilItsLocalExpiry() {
		TestProvider provider = new TestProvider(true);
		ShedLockCoordinator coordinator = coordinator(provider);
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).isTrue();
		provider.failExtends = 1;
		Claim fault = coordinator.acquire(CLUSTER, "a");
		assertThat(fault.isUnavailable()).isTrue();
		assertThat(fault.failure()).contains("extend of lock 'polling-UNIT' failed").contains("store down");
		assertThat(coordinator.acquire(CLUSTER, "a")).as("renewed after the outage").isEqualTo(new Claim(true, true, "a", -1, -1, null));
		provider.failExtends = Integer.MAX_VALUE;
		assertThat(coordinator.acquire(CLUSTER, "a").isUnavailable()).isTrue();
		this.clock.addAndGet(FAILOVER.toNanos());
		provider.failExtends = 0;
		int extendsBefore = provider.extends_;
		assertThat(coordinator.acquire(CLUSTER, "a")).as("lapsed: a fresh lock, the old one untouched")
			.isEqualTo(new Claim(true, false, "a", -1, -1, null));
		assertThat(provider.extends_).isEqualTo(extendsBefore);
	}

	@Test
	void anExtensionAnsweredAfterTheLocalExpiryIsNotTrusted() {
		TestProvider provider = new TestProvider(true);
		ShedLockCoordinator coordinator = coordinator(provider);
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).isTrue();
		provider.extendTakes = FAILOVER.toNanos();
		assertThat(coordinator.acquire(CLUSTER, "a").granted()).isFalse();
		provider.extendTakes = 0;
		int unlocks = provider.unlocks;
		coordinator.release(CLUSTER, "a");
		assertThat(provider.unlocks).as("nothing held, nothing unlocked").isEqualTo(unlocks);
	}

	private ShedLockCoordinator coordinator(LockProvider provider) {
		return ShedLockCoordinator.builder(provider).failoverPeriod(FAILOVER).nanoTime(this.clock::get).build();
	}

	/** One lock in memory on the test's virtual clock; owner-blind like ShedLock's JDBC provider on one host. */
	private final class TestProvider implements LockProvider {

		private final boolean extendable;

		long lockedUntil = Long.MIN_VALUE;

		LockConfiguration lastConfiguration;

		int locks;

		int extends_;

		int unlocks;

		int failLocks;

		int failExtends;

		long extendTakes;

		TestProvider(boolean extendable) {
			this.extendable = extendable;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			if (this.failLocks > 0) {
				this.failLocks--;
				throw new LockException("store down");
			}
			this.locks++;
			this.lastConfiguration = configuration;
			long now = ShedLockCoordinatorTest.this.clock.get();
			if (this.lockedUntil > now) {
				return Optional.empty();
			}
			this.lockedUntil = now + configuration.getLockAtMostFor().toNanos();
			return Optional.of(new Lock());
		}

		private final class Lock implements SimpleLock {

			@Override
			public void unlock() {
				TestProvider.this.unlocks++;
				TestProvider.this.lockedUntil = ShedLockCoordinatorTest.this.clock.get();
			}

			@Override
			public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
				if (!TestProvider.this.extendable) {
					return SimpleLock.super.extend(lockAtMostFor, lockAtLeastFor);
				}
				if (TestProvider.this.failExtends > 0) {
					TestProvider.this.failExtends--;
					throw new LockException("store down");
				}
				TestProvider.this.extends_++;
				long now = ShedLockCoordinatorTest.this.clock.addAndGet(TestProvider.this.extendTakes);
				if (TestProvider.this.lockedUntil <= now) {
					return Optional.empty();
				}
				TestProvider.this.lockedUntil = now + lockAtMostFor.toNanos();
				return Optional.of(new Lock());
			}

		}

	}

}
