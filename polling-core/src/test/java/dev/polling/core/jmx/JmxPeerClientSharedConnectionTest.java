package dev.polling.core.jmx;

import dev.polling.core.JmxNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.MBeanServerForwarder;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;
import dev.polling.core.test.FaultyPeers.Gate;

/**
 * All clusters of a peer share one connection: what goes wrong with one cluster's read must not
 * fail the reads of the others that are under way on the same connection. The reads under way are
 * made deterministic by the stubs' socket factory, which holds up the first request a worker
 * thread sends after {@link WriteGate#arm()} until the test lets it go.
 */
class JmxPeerClientSharedConnectionTest {

	private static final Duration LONG = Duration.ofSeconds(10);

	private static final ClusterDefinition HEALTHY = ClusterDefinition.of("HEALTHY", Duration.ofSeconds(10));

	private final JmxPeerClient client = new JmxPeerClient(PollingSettings.defaults(), TimeSource.SYSTEM);

	private final WriteGate writes = WriteGate.create();

	private final Gate getters = new Gate();

	private BareJmxServer server;

	@AfterEach
	void close() {
		this.writes.release();
		this.getters.close();
		this.client.close();
		if (this.server != null) {
			this.server.close();
		}
		WriteGate.GATES.remove(this.writes.id);
	}

	@Test
	void aClusterWhoseMBeanFailsDoesNotFailTheReadsOfTheOtherClusters() throws Exception {
		startServer(Duration.ZERO);
		register("BROKEN", new FailingMBean());
		assertOtherReadSurvives(ClusterDefinition.of("BROKEN", Duration.ofSeconds(10)), Duration.ofSeconds(2));
	}

	@Test
	void aClusterWhoseReadTimesOutDoesNotFailTheReadsOfTheOtherClusters() throws Exception {
		// the stubs' sockets time out after 1 s, as PollingJmxServer's do after its call timeout
		startServer(Duration.ofSeconds(1));
		register("STUCK", new FakeClusterMBeans.Blocking(this.getters));
		assertOtherReadSurvives(ClusterDefinition.of("STUCK", Duration.ofSeconds(10)), Duration.ofMillis(300));
	}

	@Test
	void aReadOnAConnectionThatTheJdkClosedMeanwhileIsMadeAgainOnANewOne() throws Exception {
		startServer(Duration.ofSeconds(1));
		// after the read of STUCK times out, the JDK checks the connection (getDefaultDomain); that check
		// times out too, so the JDK closes the connector under the read of HEALTHY that is under way
		this.server.forwardThrough(holdingDefaultDomain(this.getters));
		register("STUCK", new FakeClusterMBeans.Blocking(this.getters));
		assertOtherReadSurvives(ClusterDefinition.of("STUCK", Duration.ofSeconds(10)), Duration.ofMillis(300));
	}

	/**
	 * Reads HEALTHY once (the connection is made), starts a second read of HEALTHY and holds it up
	 * before it reaches the peer, reads {@code failing} until its worker is done, then lets the
	 * HEALTHY read go: it must be answered.
	 */
	private void assertOtherReadSurvives(ClusterDefinition failing, Duration failingTimeout) throws Exception {
		PeerDefinition peer = this.server.asPeer("peer");
		assertThat(this.client.observe(peer, HEALTHY, LONG).get(LONG.toMillis(), TimeUnit.MILLISECONDS).state())
			.isEqualTo(PeerState.ANSWERED);
		this.writes.arm();
		CompletableFuture<PeerObservation> healthy = this.client.observe(peer, HEALTHY, LONG);
		assertThat(this.writes.awaitHeld()).as("the HEALTHY read is held up").isTrue();
		PeerObservation failed = this.client.observe(peer, failing, failingTimeout).get(LONG.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(failed.state()).as(failed.toString()).isIn(PeerState.ERROR, PeerState.UNRESPONSIVE);
		// the failing read's worker is done (with whatever it does to the connection); only HEALTHY is left
		await().atMost(LONG).until(() -> this.client.pendingRequests() == 1);
		this.writes.release();
		PeerObservation answer = healthy.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(answer.state()).as(answer.toString()).isEqualTo(PeerState.ANSWERED);
		assertThat(answer.instanceId()).isEqualTo("peer-1");
	}

	private void startServer(Duration readTimeout) throws Exception {
		this.server = BareJmxServer.start(0, null, new GatedSocketFactory(this.writes.id, (int) readTimeout.toMillis()));
		register(HEALTHY.id(), new FakeClusterMBeans.Answering("peer-1", 42));
	}

	private void register(String cluster, Object mbean) throws Exception {
		this.server.mbeanServer().registerMBean(mbean, JmxNames.clusterName("dev.polling", cluster));
	}

	/** A forwarder that passes everything on, but holds {@code getDefaultDomain} at the gate. */
	private static MBeanServerForwarder holdingDefaultDomain(Gate gate) {
		AtomicReference<MBeanServer> next = new AtomicReference<>();
		return (MBeanServerForwarder) Proxy.newProxyInstance(MBeanServerForwarder.class.getClassLoader(),
				new Class<?>[] { MBeanServerForwarder.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "getMBeanServer":
							return next.get();
						case "setMBeanServer":
							next.set((MBeanServer) args[0]);
							return null;
						case "getDefaultDomain":
							gate.await();
							break;
						default:
							break;
					}
					try {
						return method.invoke(next.get(), args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	/** A cluster MBean whose every read fails on the peer's side. */
	static final class FailingMBean implements DynamicMBean {

		@Override
		public Object getAttribute(String attribute) {
			throw new IllegalStateException("broken");
		}

		@Override
		public void setAttribute(Attribute attribute) {
			throw new UnsupportedOperationException();
		}

		@Override
		public AttributeList getAttributes(String[] attributes) {
			throw new IllegalStateException("broken");
		}

		@Override
		public AttributeList setAttributes(AttributeList attributes) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Object invoke(String actionName, Object[] params, String[] signature) {
			throw new UnsupportedOperationException();
		}

		@Override
		public MBeanInfo getMBeanInfo() {
			return new MBeanInfo(FailingMBean.class.getName(), "fails", null, null, null, null);
		}

	}

	/** Holds up the first write of a peer-client worker thread after {@link #arm()}. */
	static final class WriteGate {

		static final Map<String, WriteGate> GATES = new ConcurrentHashMap<>();

		final String id = UUID.randomUUID().toString();

		private final AtomicBoolean armed = new AtomicBoolean();

		private final CountDownLatch held = new CountDownLatch(1);

		private final CountDownLatch released = new CountDownLatch(1);

		static WriteGate create() {
			WriteGate gate = new WriteGate();
			GATES.put(gate.id, gate);
			return gate;
		}

		void arm() {
			this.armed.set(true);
		}

		boolean awaitHeld() throws InterruptedException {
			return this.held.await(10, TimeUnit.SECONDS);
		}

		void release() {
			this.released.countDown();
		}

		void beforeWrite() {
			if (Thread.currentThread().getName().startsWith("polling-peer-") && this.armed.compareAndSet(true, false)) {
				this.held.countDown();
				try {
					this.released.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

	}

	/** The stubs' client sockets: plain, to loopback, with a read timeout, writes passing the gate. */
	static final class GatedSocketFactory implements RMIClientSocketFactory, Serializable {

		private static final long serialVersionUID = 1L;

		private final String gateId;

		private final int readTimeoutMillis;

		GatedSocketFactory(String gateId, int readTimeoutMillis) {
			this.gateId = gateId;
			this.readTimeoutMillis = readTimeoutMillis;
		}

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			WriteGate gate = WriteGate.GATES.get(this.gateId);
			Socket socket = new Socket() {

				private OutputStream out;

				@Override
				public synchronized OutputStream getOutputStream() throws IOException {
					if (this.out == null) {
						this.out = new FilterOutputStream(super.getOutputStream()) {

							@Override
							public void write(int b) throws IOException {
								gate.beforeWrite();
								this.out.write(b);
							}

							@Override
							public void write(byte[] b, int off, int len) throws IOException {
								gate.beforeWrite();
								this.out.write(b, off, len);
							}

						};
					}
					return this.out;
				}

			};
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
			socket.setSoTimeout(this.readTimeoutMillis);
			return socket;
		}

		@Override
		public boolean equals(Object obj) {
			return obj instanceof GatedSocketFactory other && other.gateId.equals(this.gateId)
					&& other.readTimeoutMillis == this.readTimeoutMillis;
		}

		@Override
		public int hashCode() {
			return this.gateId.hashCode();
		}

	}

}
