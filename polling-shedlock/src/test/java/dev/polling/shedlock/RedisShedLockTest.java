package dev.polling.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

/**
 * {@link ShedLockContractTest} on Redis (a {@code redis-server} process of the test's own) through
 * ShedLock's Spring Data Redis provider, {@link RedisLockProvider}, with Lettuce, in its default
 * configuration (without {@code safeUpdate}, so extend and unlock do not check the owner). Skipped
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
	LockProvider newProvider() {
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
		return new RedisLockProvider(factory);
	}

	@Override
	String describedAs() {
		return "RedisLockProvider";
	}

}
