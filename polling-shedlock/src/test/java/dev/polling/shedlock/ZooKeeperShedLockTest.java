package dev.polling.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.zookeeper.curator.ZookeeperCuratorLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ShedLock's ZooKeeper provider (Curator) against a real ZooKeeper server (Curator's in-process
 * {@link TestingServer}). It takes and gives back locks, but cannot extend one, so the bridge
 * refuses it: at start with one message naming the provider and the fix, and, when ZooKeeper was
 * down at the check, at the first grant, giving the lock back.
 */
class ZooKeeperShedLockTest {

	private static final ClusterDefinition CLUSTER = ClusterDefinition.of("MAIL", Duration.ofSeconds(10));

	private TestingServer server;

	private CuratorFramework client;

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(true);
		this.client = CuratorFrameworkFactory.builder()
			.connectString(this.server.getConnectString())
			.retryPolicy(new RetryOneTime(100))
			.connectionTimeoutMs(2_000)
			.sessionTimeoutMs(10_000)
			.build();
		this.client.start();
		this.client.blockUntilConnected();
	}

	@AfterEach
	void stop() throws Exception {
		this.client.close();
		this.server.close();
	}

	@Test
	void theProviderLocksInZooKeeperButCannotExtendSoTheBridgeRefusesItAtStart() throws Exception {
		ZookeeperCuratorLockProvider provider = new ZookeeperCuratorLockProvider(this.client);
		// the store is real and answers: a lock is a node, a second lock of the same name is refused
		Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), "probe", Duration.ofSeconds(30), Duration.ZERO));
		assertThat(lock).isPresent();
		assertThat(this.client.checkExists().forPath("/shedlock/probe")).isNotNull();
		assertThat(provider.lock(new LockConfiguration(Instant.now(), "probe", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		lock.get().unlock();

		ShedLockCoordinator coordinator = ShedLockCoordinator.builder(provider).failoverPeriod(Duration.ofSeconds(10)).build();
		assertThatThrownBy(coordinator::verifyExtendSupport).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining(ZookeeperCuratorLockProvider.class.getName())
			.hasMessageContaining("cannot extend a lock")
			.hasMessageContaining("ExtensibleLockProvider");
		// the probe's lock was given back: another lock of that name is granted
		Optional<SimpleLock> again = provider.lock(new LockConfiguration(Instant.now(), "polling-extend-probe", Duration.ofSeconds(30),
				Duration.ZERO));
		assertThat(again).isPresent();
		again.get().unlock();
	}

	@Test
	void whenZooKeeperIsDownAtTheCheckTheFirstGrantIsRefusedAndItsLockGivenBack() throws Exception {
		ZookeeperCuratorLockProvider provider = new ZookeeperCuratorLockProvider(this.client);
		ShedLockCoordinator coordinator = ShedLockCoordinator.builder(provider).failoverPeriod(Duration.ofSeconds(10)).build();
		this.server.stop();
		coordinator.verifyExtendSupport(); // only a warning: the store does not answer
		Claim down = coordinator.acquire(CLUSTER, "a");
		assertThat(down.granted()).isFalse();
		assertThat(down.isUnavailable()).isTrue();

		this.server.restart();
		this.client.blockUntilConnected();
		Claim first = coordinator.acquire(CLUSTER, "a");
		assertThat(first.granted()).isFalse();
		assertThat(first.failure()).contains(ZookeeperCuratorLockProvider.class.getName()).contains("cannot extend a lock");
		// the lock taken for that grant was given back
		Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), "polling-MAIL", Duration.ofSeconds(30), Duration.ZERO));
		assertThat(lock).isPresent();
		lock.get().unlock();
	}

}
