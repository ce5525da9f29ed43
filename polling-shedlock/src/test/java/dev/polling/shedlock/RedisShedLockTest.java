package dev.polling.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.polling.core.ClusterCoordinator.Claim;
import dev.polling.core.ClusterDefinition;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

/**
 * {@link ShedLockContractTest} on Redis (a {@code redis-server} process of the test's own) through
 * ShedLock's Spring Data Redis provider, {@link RedisLockProvider}, with Lettuce: with
 * {@code safeUpdate(true)} (recommended), and in its default configuration, where extend and
 * unlock do not check the owner, for the frozen holder's scenarios. Skipped
 * when no {@code redis-server} is installed, unless {@code -Dpolling.test.require-redis=true}.
 */
class RedisShedLockTest extends ShedLockContractTest {

	private @Nullable RedisServerProcess server;

	private @Nullable ClientResources resources;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@Override
	void startStore() {
		this.server = RedisServerProcess.start();
		// reconnect at a steady pace after an outage (Lettuce backs off up to 30 s by default)
		this.resources = DefaultClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
		warmUp();
	}

	/**
	 * One lock taken and released with a generous timeout before the tests: the JVM's first Redis
	 * command loads and initialises Netty, Lettuce, Spring Data Redis and the provider, which on a
	 * loaded 2-core machine took longer than the tests' failover period (the first test's grant came
	 * after its local expiry, or the connection's initialisation timed out after 1 s), on Java 17 and 25.
	 */
	private void warmUp() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(this.resources)
			.commandTimeout(Duration.ofSeconds(30))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
				this.server.port()), client);
		factory.afterPropertiesSet();
		factory.start();
		try {
			new RedisLockProvider.Builder(factory).safeUpdate(true)
				.build()
				.lock(new LockConfiguration(Instant.now(), "polling-warm-up", Duration.ofSeconds(30), Duration.ZERO))
				.orElseThrow()
				.unlock();
		}
		finally {
			factory.destroy();
		}
	}

	@Override
	void closeStore() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
		if (this.resources != null) {
			this.resources.shutdown();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@Override
	void stopServer() {
		this.server.stopProcess();
	}

	@Override
	void restartServer() {
		this.server.startProcess();
	}

	@Override
	void forgetLock(String lockName) {
		// the key of ShedLock's Redis provider: prefix, environment and name, its defaults here
		try (RedisConnection connection = newConnectionFactory().getConnection()) {
			assertThat(connection.keyCommands().del(("job-lock:default:" + lockName).getBytes(StandardCharsets.UTF_8)))
				.as("the lock's key was there").isEqualTo(1L);
		}
	}

	@Override
	void forgetAllLocks() {
		try (RedisConnection connection = newConnectionFactory().getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	private LettuceConnectionFactory newConnectionFactory() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(this.resources)
			.commandTimeout(Duration.ofSeconds(1))
			// fail at once while disconnected instead of queueing commands until the reconnect
			.clientOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
				this.server.port()), client);
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	@Override
	LockProvider newProvider() {
		// the recommended configuration: extend and unlock check the lock's unique value
		return new RedisLockProvider.Builder(newConnectionFactory()).safeUpdate(true).build();
	}

	@Override
	LockProvider newOwnerBlindProvider() {
		// ShedLock's default: extend (SET XX) and unlock (DEL) whoever holds the key
		return new RedisLockProvider(newConnectionFactory());
	}

	/**
	 * A Redis without persistence forgets its locks when it restarts: another instance then takes
	 * the cluster while the holder's local lease still runs. With {@code safeUpdate(true)} the
	 * former holder's next renewal is refused, so the overlap lasts at most one tick; without it, the
	 * former holder's extend overwrites the new holder's key and both keep renewing.
	 */
	@Test
	void afterARestartThatLostTheLocksTheFormerHoldersRenewalIsRefusedOnlyWithSafeUpdate() throws Exception {
		ClusterDefinition safe = newCluster("LOST_SAFE");
		ClusterDefinition blind = newCluster("LOST_BLIND");
		Instance a = instance("a", safe);
		Instance b = instance("b", safe);
		Instance blindA = ownerBlindInstance("a", blind);
		Instance blindB = ownerBlindInstance("b", blind);
		assertThat(a.acquire().granted()).isTrue();
		assertThat(blindA.acquire().granted()).isTrue();
		stopServer();
		restartServer();
		assertThat(answer(b).granted()).as("b takes the forgotten lock").isTrue();
		assertThat(answer(blindB).granted()).isTrue();
		assertThat(answer(a).granted()).as("a's renewal with safeUpdate").isFalse();
		assertThat(b.acquire().renewed()).isTrue();
		assertThat(answer(blindA).granted()).as("a's renewal without safeUpdate overwrites b's key").isTrue();
		assertThat(blindB.acquire().granted()).as("and b renews as well: two holders").isTrue();
	}

	/** The first answer that is not unavailable (the client reconnects after a restart). */
	private static Claim answer(Instance instance) throws InterruptedException {
		long start = System.nanoTime();
		Claim claim = instance.acquire();
		while (claim.isUnavailable()) {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("reconnect").isLessThan(Duration.ofSeconds(5));
			Thread.sleep(50);
			claim = instance.acquire();
		}
		return claim;
	}

	@Override
	String describedAs() {
		return "RedisLockProvider";
	}

}
