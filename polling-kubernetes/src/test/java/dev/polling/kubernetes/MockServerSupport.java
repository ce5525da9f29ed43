package dev.polling.kubernetes;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/** fabric8's mock API server in CRUD mode (resourceVersion checked on update, 409 on a stale one), and clients for it. */
final class MockServerSupport {

	static final String NAMESPACE = "test";

	private MockServerSupport() {
	}

	/** A CRUD mock server listening on the port (0: any free one). */
	static KubernetesMockServer start(int port) {
		KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		try {
			server.init(InetAddress.getByName("127.0.0.1"), port);
		}
		catch (UnknownHostException ex) {
			throw new IllegalStateException(ex);
		}
		return server;
	}

	/** A client of the port on the loopback address: no retries, short timeouts, no kubeconfig of this machine. */
	static KubernetesClient client(int port, String namespace) {
		Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + port + "/")
			.withNamespace(namespace)
			.withRequestRetryBackoffLimit(0)
			.withConnectionTimeout(1000)
			.withRequestTimeout(2000)
			.build();
		return new KubernetesClientBuilder().withConfig(config).build();
	}

	/** A monotonic clock the test moves by hand. */
	static final class ManualClock implements LongSupplier {

		private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

		@Override
		public long getAsLong() {
			return this.nanos.get();
		}

		void advance(Duration duration) {
			this.nanos.addAndGet(duration.toNanos());
		}

		Clock wall() {
			return new Clock() {

				@Override
				public ZoneOffset getZone() {
					return ZoneOffset.UTC;
				}

				@Override
				public Clock withZone(java.time.ZoneId zone) {
					return this;
				}

				@Override
				public Instant instant() {
					return Instant.parse("2026-01-01T00:00:00Z").plusNanos(ManualClock.this.nanos.get());
				}

			};
		}

	}

}
