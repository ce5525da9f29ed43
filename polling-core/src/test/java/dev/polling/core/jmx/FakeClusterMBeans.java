package dev.polling.core.jmx;

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

}
