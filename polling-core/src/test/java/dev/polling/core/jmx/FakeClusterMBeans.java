package dev.polling.core.jmx;

import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.polling.core.test.FaultyPeers.Gate;

/** Broken versions of the cluster MBean for fault tests. */
public final class FakeClusterMBeans {

	private FakeClusterMBeans() {
	}

	/** An MBean whose elapsed-time getter blocks until the gate opens. */
	public interface BlockingMBean {

		long getElapsedMillis();

	}

	public static final class Blocking implements BlockingMBean {

		private final Gate gate;

		public Blocking(Gate gate) {
			this.gate = gate;
		}

		@Override
		public long getElapsedMillis() {
			this.gate.await();
			return 0;
		}

	}

	/** An MBean whose elapsed time is a String. */
	public interface WrongTypeMBean {

		String getElapsedMillis();

		String getInstanceId();

	}

	public static final class WrongType implements WrongTypeMBean {

		@Override
		public String getElapsedMillis() {
			return "soon";
		}

		@Override
		public String getInstanceId() {
			return "wrong-type";
		}

	}

	/** A healthy cluster MBean: fixed elapsed time and instance id, optionally waiting at a gate first. */
	public interface AnsweringMBean {

		long getElapsedMillis();

		String getInstanceId();

	}

	public static final class Answering implements AnsweringMBean {

		private final String instanceId;

		private final long elapsedMillis;

		private final @Nullable Gate gate;

		private final AtomicInteger reads = new AtomicInteger();

		public Answering(String instanceId, long elapsedMillis) {
			this(instanceId, elapsedMillis, null);
		}

		/** Answers only once the gate is open. */
		public Answering(String instanceId, long elapsedMillis, @Nullable Gate gate) {
			this.instanceId = instanceId;
			this.elapsedMillis = elapsedMillis;
			this.gate = gate;
		}

		@Override
		public long getElapsedMillis() {
			this.reads.incrementAndGet();
			if (this.gate != null) {
				this.gate.await();
			}
			return this.elapsedMillis;
		}

		@Override
		public String getInstanceId() {
			return this.instanceId;
		}

		/** How often the elapsed time was read. */
		public int reads() {
			return this.reads.get();
		}

	}

}
