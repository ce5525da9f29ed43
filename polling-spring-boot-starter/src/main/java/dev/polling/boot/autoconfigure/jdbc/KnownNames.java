package dev.polling.boot.autoconfigure.jdbc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The queues (or destinations) a gauge reports on: those configured in this application, those
 * seen in the statistics or in an event since start. The statistics list only names with open
 * rows, so without this an emptied queue's gauge series would vanish (no data) instead of showing 0.
 */
final class KnownNames {

	private final Supplier<? extends Collection<String>> configured;

	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	KnownNames(Supplier<? extends Collection<String>> configured) {
		this.configured = configured;
	}

	void saw(String name) {
		this.seen.add(name);
	}

	/**
	 * The statistics with a zero row for every known name they lack, ordered by name.
	 * @param stats the statistics read
	 * @param name a row's name
	 * @param zero a row of zeros for a name
	 */
	<S> List<S> complete(List<S> stats, Function<S, String> name, Function<String, S> zero) {
		Map<String, S> rows = new TreeMap<>();
		for (S row : stats) {
			rows.put(name.apply(row), row);
			this.seen.add(name.apply(row));
		}
		Collection<String> names;
		try {
			names = this.configured.get();
		}
		catch (RuntimeException ex) {
			names = List.of(); // the configured names are a convenience; the statistics still count
		}
		this.seen.addAll(names);
		for (String known : this.seen) {
			rows.computeIfAbsent(known, zero);
		}
		return new ArrayList<>(rows.values());
	}

}
