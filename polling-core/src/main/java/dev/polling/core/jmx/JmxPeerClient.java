package dev.polling.core.jmx;

import dev.polling.core.PollingClusterMXBean;
import dev.polling.core.JmxContract;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.ObjectName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.core.ClusterDefinition;
import dev.polling.core.PeerClient;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerFault;
import dev.polling.core.PeerObservation;
import dev.polling.core.PeerState;
import dev.polling.core.PollingSettings;
import dev.polling.core.TimeSource;

/**
 * Reads the peers' cluster MBeans over JMX/RMI, one cached connection per peer shared by all
 * clusters, each request on a worker thread so the caller waits only as long as it wants.
 *
 * <p>A read that fails because the cached connection is dead (the peer closed it after it was idle,
 * or restarted; the JDK or another request closed it meanwhile) is made again on a new connection
 * within the same deadline, so "unknown" means the peer really did not answer in time. A read that
 * fails for its own reasons (the peer's MBean failed, the read timed out) leaves the connection to
 * the other clusters' reads ({@link PeerConnection}).
 *
 * <p>Threads stuck on a dead peer stay bounded: while a request to a peer has hung for longer than
 * the peer timeout, no new request is sent to it (the answer is {@link PeerFault#STILL_PENDING} at
 * once), and at most {@code maxPendingPerPeer} requests per peer are in flight; further requests
 * (many clusters decided at once) wait for a free slot up to their own deadline, so that a peer that
 * is merely busy is not reported unknown. The registry look-up uses sockets with connect and read
 * timeouts, so a peer that accepts TCP and never answers, or drops SYNs, frees its thread after the
 * timeout. Connection failures that a retry will not fix soon (credentials, TLS, protocol) are
 * retried with exponential backoff (1 s to 30 s). No JVM-wide setting is changed.
 */
public final class JmxPeerClient implements PeerClient {

	private static final Logger logger = LoggerFactory.getLogger(JmxPeerClient.class);

	private final String[] attributes;

	private static final long MIN_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final PollingSettings settings;

	private final TimeSource time;

	private final int maxPendingPerPeer;

	private final Map<String, SSLContext> peerTls;

	private final ThreadPoolExecutor executor;

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/** Attempts of one request at most: a stale cached connection, then one closed under it by another request. */
	private static final int MAX_ATTEMPTS = 3;

	/** Requests in flight per peer at most, by default. */
	public static final int DEFAULT_MAX_PENDING_PER_PEER = 4;

	public JmxPeerClient(PollingSettings settings, TimeSource time) {
		this(settings, time, DEFAULT_MAX_PENDING_PER_PEER);
	}

	public JmxPeerClient(PollingSettings settings, TimeSource time, int maxPendingPerPeer) {
		this(settings, time, maxPendingPerPeer, Map.of());
	}

	/**
	 * @param settings the instance's settings (JMX domain)
	 * @param time the time source
	 * @param maxPendingPerPeer requests in flight per peer at most
	 * @param peerTls TLS contexts by peer id, for peers whose JMX server speaks TLS
	 */
	public JmxPeerClient(PollingSettings settings, TimeSource time, int maxPendingPerPeer, Map<String, SSLContext> peerTls) {
		this.peerTls = Map.copyOf(peerTls);
		if (maxPendingPerPeer < 1) {
			throw new IllegalArgumentException("maxPendingPerPeer " + maxPendingPerPeer + " must be at least 1");
		}
		this.settings = settings;
		this.time = time;
		this.maxPendingPerPeer = maxPendingPerPeer;
		this.attributes = attributeNames(settings.jmxContract()).toArray(String[]::new);
		AtomicInteger count = new AtomicInteger();
		this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), (r) -> {
			Thread thread = new Thread(r, "polling-peer-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	@Override
	public CompletableFuture<PeerObservation> observe(PeerDefinition peer, ClusterDefinition cluster, Duration timeout) {
		Channel channel = this.channels.computeIfAbsent(peer.id(), (id) -> new Channel(peer));
		return channel.observe(cluster, timeout);
	}

	/** Number of requests in flight (including stuck ones) over all peers; for tests and diagnostics. */
	public int pendingRequests() {
		return this.channels.values().stream().mapToInt((c) -> c.pending.size()).sum();
	}

	@Override
	public void close() {
		this.closed = true;
		this.executor.shutdown();
		for (Channel channel : this.channels.values()) {
			Thread closer = new Thread(channel.connection::close, "polling-peer-close-" + channel.peer.id());
			closer.setDaemon(true);
			closer.start();
		}
	}

	/** One peer: its cached connection, its pending requests and its backoff. */
	private final class Channel {

		final PeerDefinition peer;

		final Map<Object, Long> pending = new ConcurrentHashMap<>();

		/** Requests to the peer in flight at most; further ones wait for a slot (in arrival order) until their deadline. */
		final Semaphore permits = new Semaphore(JmxPeerClient.this.maxPendingPerPeer, true);

		final PeerConnection connection;

		private final @Nullable SSLContext tls;

		private volatile long retryAt;

		private volatile long backoffNanos;

		private volatile @Nullable PeerObservation lastConnectFailure;

		Channel(PeerDefinition peer) {
			this.peer = peer;
			this.tls = JmxPeerClient.this.peerTls.get(peer.id());
			this.connection = new PeerConnection(peer, this.tls);
		}

		CompletableFuture<PeerObservation> observe(ClusterDefinition cluster, Duration timeout) {
			long start = JmxPeerClient.this.time.nanoTime();
			long deadline = System.nanoTime() + timeout.toNanos();
			for (Long since : this.pending.values()) {
				if (start - since > timeout.toNanos()) {
					return CompletableFuture.completedFuture(failed(PeerState.UNRESPONSIVE, PeerFault.STILL_PENDING, start,
							"an earlier request has not returned for " + (start - since) / 1_000_000L + " ms"));
				}
			}
			PeerObservation backingOff = this.lastConnectFailure;
			if (backingOff != null && start - this.retryAt < 0) {
				return CompletableFuture.completedFuture(failed(backingOff.state(), backingOff.fault(), start,
						backingOff.detail() + " (next attempt in " + (this.retryAt - start) / 1_000_000L + " ms)"));
			}
			CompletableFuture<PeerObservation> result = new CompletableFuture<>();
			try {
				JmxPeerClient.this.executor.execute(() -> result.complete(request(cluster, timeout, start, deadline)));
			}
			catch (RejectedExecutionException ex) {
				result.complete(failed(PeerState.ERROR, PeerFault.IO, start, "the peer client is closed"));
			}
			return result;
		}

		/**
		 * Waits for one of the peer's request slots (a busy peer is not an unknown one), then asks.
		 * Only a request whose own deadline passes meanwhile gives up.
		 */
		private PeerObservation request(ClusterDefinition cluster, Duration timeout, long start, long deadline) {
			try {
				if (!this.permits.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
					return failed(PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, start, "no answer within " + timeout.toMillis() + " ms: the "
							+ JmxPeerClient.this.maxPendingPerPeer + " requests to this peer in flight did not return meanwhile");
				}
			}
			catch (InterruptedException ex) {
				return classify(ex, start);
			}
			// in flight since the caller asked: once the caller's timeout has passed, the request counts as hung
			Object token = new Object();
			this.pending.put(token, start);
			try {
				// every connect and read of this request ends by the caller's deadline, not the peer's call timeout
				return TimeoutClientSocketFactory.withDeadline(deadline, () -> query(cluster, timeout, start, deadline));
			}
			catch (Throwable ex) {
				return classify(ex, start);
			}
			finally {
				this.pending.remove(token);
				this.permits.release();
			}
		}

		/**
		 * Reads the cluster's MBean over the peer's cached connection. A read that fails because that
		 * connection is dead (the peer closed it after it was idle or restarted; another request or the
		 * JDK closed it meanwhile) is made again on a new connection within the same deadline. A failure
		 * on a connection made during this very request is the peer's answer.
		 */
		private PeerObservation query(ClusterDefinition cluster, Duration timeout, long start, long deadline) throws Exception {
			ObjectName name = JmxPeerClient.this.settings.jmxContract().objectName(JmxPeerClient.this.settings.jmxDomain(), cluster);
			for (int attempt = 1;; attempt++) {
				long asked = System.nanoTime();
				PeerConnection.Lease lease;
				try {
					lease = this.connection.acquire(deadline, timeout);
				}
				catch (Exception | Error ex) {
					// a connect that broke off (EOF, reset: RMI may hand out a pooled socket to a peer that has
					// restarted on the same port) is tried again within the deadline; refused, timed out, credentials,
					// TLS and the like are the peer's answer
					if (ex instanceof IOException io && !isTimeout(io) && classify(io, start).fault() == PeerFault.IO
							&& attempt < MAX_ATTEMPTS && System.nanoTime() - deadline < 0) {
						logger.debug("Peer '{}': connecting failed ({}); connecting again", this.peer.id(), ex.toString());
						continue;
					}
					return connectFailed(ex, start);
				}
				this.lastConnectFailure = null;
				this.backoffNanos = 0;
				try {
					// Attributes a peer lacks (isy-polling: instance id, candidacy) are simply absent from the answer.
					// The JDK reconnects by itself when the peer no longer knows the connection (NoSuchObjectException);
					// the stubs it fetches then need this peer's TLS context.
					AttributeList attributes = TimeoutClientSocketFactory.withClientTls(this.tls,
							() -> lease.connection().getAttributes(name, JmxPeerClient.this.attributes));
					return parse(attributes, name, start);
				}
				catch (InstanceNotFoundException ex) {
					return failed(PeerState.ERROR, PeerFault.MISSING_MBEAN, start, "the peer has no MBean " + name);
				}
				catch (IOException ex) {
					// a connection that was already there (cached), or that someone else closed meanwhile, may have died
					// before this read; one this request made, and nobody closed, failed for the peer's own reasons
					boolean stale = lease.isOlderThan(asked) || lease.isClosedByAnotherThread();
					if (isTimeout(ex)) {
						// the peer did not answer in time: no reason to drop a connection the JDK still finds good
						if (lease.isClosed()) {
							this.connection.discard(lease);
						}
						throw ex;
					}
					this.connection.discard(lease);
					if (!stale || attempt >= MAX_ATTEMPTS || System.nanoTime() - deadline >= 0) {
						throw ex;
					}
					logger.debug("Peer '{}': the connection failed ({}); reading again on a new one", this.peer.id(), ex.toString());
				}
				catch (RuntimeException ex) {
					// the peer answered, with an error: the connection itself is fine, unless the JDK gave it up
					if (lease.isClosed()) {
						this.connection.discard(lease);
					}
					throw ex;
				}
			}
		}

		private PeerObservation connectFailed(Throwable ex, long start) {
			PeerObservation failure = classify(ex, start);
			if (failure.fault() == PeerFault.AUTHENTICATION || failure.fault() == PeerFault.TLS || failure.fault() == PeerFault.IO) {
				long backoff = Math.min(MAX_BACKOFF_NANOS, Math.max(MIN_BACKOFF_NANOS, this.backoffNanos * 2));
				this.backoffNanos = backoff;
				this.retryAt = JmxPeerClient.this.time.nanoTime() + backoff;
				this.lastConnectFailure = failure;
			}
			return failure;
		}

		private PeerObservation parse(AttributeList attributes, ObjectName name, long start) {
			Map<String, Object> values = new HashMap<>();
			for (Attribute attribute : attributes.asList()) {
				values.put(attribute.getName(), attribute.getValue());
			}
			// An instance of ours under the isy-polling contract also has ElapsedMillis: prefer it (its
			// isy-polling attribute reports a candidacy as activity, for the isy-polling peers' sake).
			String elapsedAttribute = values.containsKey(PollingClusterMXBean.ELAPSED_MILLIS) ? PollingClusterMXBean.ELAPSED_MILLIS
					: JmxPeerClient.this.settings.jmxContract().elapsedAttribute();
			Object elapsed = values.get(elapsedAttribute);
			if (elapsed == null) {
				return failed(PeerState.ERROR, PeerFault.BAD_RESPONSE, start,
						"MBean " + name + " has no readable attribute " + elapsedAttribute);
			}
			if (!(elapsed instanceof Long || elapsed instanceof Integer)) {
				return failed(PeerState.ERROR, PeerFault.BAD_RESPONSE, start, "attribute " + elapsedAttribute
						+ " of " + name + " is a " + elapsed.getClass().getSimpleName() + ", expected long");
			}
			Object instanceId = values.get(PollingClusterMXBean.INSTANCE_ID);
			long elapsedMillis = ((Number) elapsed).longValue();
			Object candidateAge = values.get(PollingClusterMXBean.CANDIDATE_AGE_MILLIS);
			long candidateAgeMillis = (candidateAge instanceof Long || candidateAge instanceof Integer) ? ((Number) candidateAge).longValue() : -1;
			// Instances of this library: take both from one consistent snapshot.
			int heldClusters = -1;
			PeerObservation.Published published = null;
			if (values.get(PollingClusterMXBean.COORDINATION_STATE) instanceof long[] state && state.length >= 2) {
				elapsedMillis = state[0];
				candidateAgeMillis = state[1];
				heldClusters = (state.length >= 3) ? (int) Math.min(Integer.MAX_VALUE, state[2]) : -1;
				published = (state.length >= 7) ? new PeerObservation.Published(state[3], state[4], state[5], state[6]) : null;
			}
			long now = JmxPeerClient.this.time.nanoTime();
			return new PeerObservation(this.peer.id(), this.peer.address(), PeerState.ANSWERED, PeerFault.NONE,
					(instanceId instanceof String s) ? s : null, elapsedMillis, candidateAgeMillis, Duration.ofNanos(now - start),
					JmxPeerClient.this.time.now(), null, heldClusters, published);
		}

		private PeerObservation classify(Throwable ex, long start) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			for (Throwable t = ex; t != null; t = t.getCause()) {
				if (t instanceof java.net.UnknownHostException) {
					return failed(PeerState.ERROR, PeerFault.UNKNOWN_HOST, start, "unknown host " + t.getMessage());
				}
				if (t instanceof java.rmi.ConnectIOException && String.valueOf(t.getMessage()).contains("non-JRMP server")) {
					// RMI's handshake got an answer in another protocol: most often the HTTP port of the application
					return failed(PeerState.ERROR, PeerFault.NOT_JMX, start,
							"the address answers, but not as a JMX/RMI server (an HTTP port?)");
				}
				if (t instanceof java.net.ConnectException) {
					String message = String.valueOf(t.getMessage());
					if (message.contains("refused")) {
						return failed(PeerState.REFUSED, PeerFault.CONNECTION_REFUSED, start, "connection refused");
					}
					return failed(PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, start, "could not connect: " + message);
				}
				if (t instanceof SocketTimeoutException) {
					return failed(PeerState.UNRESPONSIVE, PeerFault.TIMEOUT, start, "timed out: " + t.getMessage());
				}
				if (t instanceof SecurityException) {
					return failed(PeerState.ERROR, PeerFault.AUTHENTICATION, start,
							"credentials rejected" + ((this.peer.username() != null) ? " for user '" + this.peer.username() + "'" : " (no credentials configured)"));
				}
				if (t instanceof SSLException) {
					return failed(PeerState.ERROR, PeerFault.TLS, start, "TLS failed: " + t.getMessage());
				}
				if (t instanceof InstanceNotFoundException) {
					return failed(PeerState.ERROR, PeerFault.MISSING_MBEAN, start, "missing MBean: " + t.getMessage());
				}
			}
			logger.debug("Peer '{}' failed", this.peer.id(), ex);
			Throwable root = ex;
			while (root.getCause() != null && root.getCause() != root) {
				root = root.getCause();
			}
			return failed(PeerState.ERROR, PeerFault.IO, start, root.getClass().getSimpleName()
					+ ((root.getMessage() != null) ? ": " + firstLine(root.getMessage()) : ""));
		}

		private PeerObservation failed(PeerState state, PeerFault fault, long start, String detail) {
			return PeerObservation.failed(this.peer, state, fault, Duration.ofNanos(JmxPeerClient.this.time.nanoTime() - start),
					JmxPeerClient.this.time.now(), detail);
		}

	}

	/** Whether the failure is a read or connect that timed out (the peer timeout, or the peer's call timeout). */
	private static boolean isTimeout(Throwable ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof InterruptedIOException) {
				return true;
			}
		}
		return false;
	}

	private static String firstLine(String message) {
		int nl = message.indexOf('\n');
		String line = (nl >= 0) ? message.substring(0, nl) : message;
		return (line.length() > 200) ? line.substring(0, 200) + "..." : line;
	}

	static List<String> attributeNames() {
		return attributeNames(JmxContract.NATIVE);
	}

	static List<String> attributeNames(JmxContract contract) {
		if (contract == JmxContract.NATIVE) {
			return List.of(PollingClusterMXBean.COORDINATION_STATE, PollingClusterMXBean.ELAPSED_MILLIS, PollingClusterMXBean.INSTANCE_ID,
					PollingClusterMXBean.CANDIDATE_AGE_MILLIS);
		}
		return List.of(PollingClusterMXBean.COORDINATION_STATE, contract.elapsedAttribute(), PollingClusterMXBean.ELAPSED_MILLIS,
				PollingClusterMXBean.INSTANCE_ID, PollingClusterMXBean.CANDIDATE_AGE_MILLIS);
	}

}
