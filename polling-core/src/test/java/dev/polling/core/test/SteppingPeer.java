package dev.polling.core.test;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.ObjectName;
import javax.management.StandardMBean;

import dev.polling.core.PeerDefinition;
import dev.polling.core.JmxNames;
import dev.polling.core.jmx.JmxServerSettings;
import dev.polling.core.PollingClusterMXBean;
import dev.polling.core.jmx.PollingJmxServer;

/**
 * A peer in its own JMX connector server that reports itself idle (never active, not a candidate)
 * and can hold one chosen read until the test lets it go: the test then acts at exactly that point
 * of the reader's decision (between its announcement and its grant, say).
 */
public final class SteppingPeer extends IdlePeerMBean implements AutoCloseable {

	private final String instanceId;

	private final PollingJmxServer server;

	private final AtomicInteger reads = new AtomicInteger();

	private volatile int blockedRead = -1;

	private final CountDownLatch entered = new CountDownLatch(1);

	private final CountDownLatch released = new CountDownLatch(1);

	public SteppingPeer(String instanceId, String clusterId) {
		this.instanceId = instanceId;
		try {
			this.server = PollingJmxServer.start(JmxServerSettings.loopback(0));
			ObjectName name = JmxNames.clusterName("dev.polling", clusterId);
			this.server.mbeanServer().registerMBean(new StandardMBean(this, PollingClusterMXBean.class, true), name);
		}
		catch (IOException | javax.management.JMException ex) {
			throw new IllegalStateException(ex);
		}
	}

	public PeerDefinition asPeer() {
		return PeerDefinition.of(this.instanceId, "127.0.0.1", this.server.port());
	}

	/** Holds the given read (1 = the first one from now on) until {@link #release()}. */
	public void holdRead(int nth) {
		this.blockedRead = this.reads.get() + nth;
	}

	/** Waits until the held read has arrived. */
	public void awaitHeldRead() throws InterruptedException {
		if (!this.entered.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("the held read did not arrive within 10 s");
		}
	}

	/** Lets the held read answer. */
	public void release() {
		this.released.countDown();
	}

	@Override
	public long[] getCoordinationState() {
		if (this.reads.incrementAndGet() == this.blockedRead) {
			this.entered.countDown();
			try {
				this.released.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		return new long[] { Long.MAX_VALUE, -1, 0 };
	}

	@Override
	public String getInstanceId() {
		return this.instanceId;
	}

	@Override
	public void close() {
		release();
		this.server.close();
	}

}
