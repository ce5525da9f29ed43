package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.polling.core.Decision.Reason;

/**
 * Issue 29, defect 6: nothing a coordinator's store throws escapes {@code decide()}. A store that
 * throws a checked exception it did not declare (sneaky), an {@link Error} that is not a VM error
 * (an {@link AssertionError}, a {@link LinkageError} of a missing driver class) or a
 * {@link RuntimeException} is classified as unavailable: the decision refuses with
 * {@link Reason#COORDINATION_UNAVAILABLE} and names the fault; a {@link VirtualMachineError} is left
 * to the caller.
 */
class CoordinatorFaultTest {

	/** A coordinator whose store throws what the test sets, then answers again when it is cleared. */
	private static final class ThrowingCoordinator implements ClusterCoordinator {

		final AtomicReference<Supplier<Throwable>> fault = new AtomicReference<>();

		@Override
		public Claim acquire(ClusterDefinition cluster, String instanceId) {
			Supplier<Throwable> f = this.fault.get();
			if (f != null) {
				throw CoordinatorFaultTest.<RuntimeException>sneaky(f.get());
			}
			return new Claim(true, false, instanceId, 1, 0, null);
		}

		@Override
		public void release(ClusterDefinition cluster, String instanceId) {
			Supplier<Throwable> f = this.fault.get();
			if (f != null) {
				throw CoordinatorFaultTest.<RuntimeException>sneaky(f.get());
			}
		}

		@Override
		public String describe() {
			return "a throwing store";
		}

	}

	@SuppressWarnings("unchecked")
	private static <T extends Throwable> T sneaky(Throwable t) throws T {
		throw (T) t;
	}

	private static PollingManager manager(ThrowingCoordinator coordinator) {
		return PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("a"))
			.cluster(ClusterDefinition.of("JOBS", Duration.ofSeconds(10)))
			.coordinator("JOBS", coordinator)
			.build();
	}

	@Test
	void aSneakyCheckedExceptionAnErrorOrARuntimeExceptionOfTheStoreIsClassifiedAsUnavailable() {
		ThrowingCoordinator coordinator = new ThrowingCoordinator();
		try (PollingManager manager = manager(coordinator)) {
			for (Supplier<Throwable> fault : java.util.List.<Supplier<Throwable>>of(() -> new IOException("socket closed"),
					() -> new AssertionError("driver assertion"), () -> new NoClassDefFoundError("org/h2/Driver"),
					() -> new IllegalStateException("pool closed"))) {
				coordinator.fault.set(fault);
				Decision decision = manager.decide("JOBS");
				assertThat(decision.reason()).as("%s", fault.get()).isEqualTo(Reason.COORDINATION_UNAVAILABLE);
				assertThat(decision.peers()).singleElement()
					.satisfies((o) -> assertThat(o.detail()).contains(fault.get().getClass().getSimpleName()));
				assertThat(manager.isHolding("JOBS")).isFalse();
			}
			coordinator.fault.set(null);
			assertThat(manager.decide("JOBS").reason()).as("the store answers again").isEqualTo(Reason.NO_ACTIVE_PEER);
			coordinator.fault.set(() -> new IOException("socket closed"));
			manager.pause("JOBS"); // the release fails in the store: logged, not thrown
			assertThat(manager.isPaused("JOBS")).isTrue();
		}
	}

	@Test
	void aVirtualMachineErrorIsLeftToTheCaller() {
		ThrowingCoordinator coordinator = new ThrowingCoordinator();
		try (PollingManager manager = manager(coordinator)) {
			coordinator.fault.set(() -> new OutOfMemoryError("simulated"));
			assertThatThrownBy(() -> manager.decide("JOBS")).isInstanceOf(OutOfMemoryError.class);
			coordinator.fault.set(null);
		}
	}

}
