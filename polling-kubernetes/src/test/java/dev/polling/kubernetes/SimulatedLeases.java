package dev.polling.kubernetes;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.polling.kubernetes.LeaseStore.LeaseRecord;
import dev.polling.kubernetes.LeaseStore.Observed;

/**
 * The Lease objects of a simulated Kubernetes API: create fails when the object exists, update when
 * the resource version read is no longer the current one (or the object is gone); every write gets a
 * new resource version. The simulations decide when a request is applied; this holds what it does.
 * An operator may delete a Lease or put back an older copy (a restore), which also gets a new version.
 */
final class SimulatedLeases {

	private final Map<String, Observed> leases = new HashMap<>();

	private long nextVersion = 1;

	/** A UTC wall clock that reads the simulation's time (the instances' wall clocks, skew and all). */
	static Clock wallClock(Supplier<Instant> instant) {
		return new Clock() {

			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				return instant.get();
			}

		};
	}

	/** The Lease, or null when there is none. */
	@Nullable Observed get(String name) {
		return this.leases.get(name);
	}

	/** Creates the Lease; null (a conflict) when it exists. */
	@Nullable Observed create(String name, LeaseRecord record) {
		return this.leases.containsKey(name) ? null : put(name, record);
	}

	/** Replaces the Lease if it still has the given version; null (a conflict) otherwise or when it is gone. */
	@Nullable Observed update(String name, String resourceVersion, LeaseRecord record) {
		Observed current = this.leases.get(name);
		return (current != null && current.resourceVersion().equals(resourceVersion)) ? put(name, record) : null;
	}

	/** An operator deletes the Lease. */
	void delete(String name) {
		this.leases.remove(name);
	}

	/** An operator puts the given content back (a restore), under a new version. */
	Observed restore(String name, LeaseRecord record) {
		return put(name, record);
	}

	/** The names of the Leases that exist. */
	List<String> names() {
		return new ArrayList<>(this.leases.keySet());
	}

	private Observed put(String name, LeaseRecord record) {
		Observed written = new Observed(Long.toString(this.nextVersion++), record);
		this.leases.put(name, written);
		return written;
	}

}
