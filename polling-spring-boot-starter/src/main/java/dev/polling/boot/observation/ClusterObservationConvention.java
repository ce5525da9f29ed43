package dev.polling.boot.observation;

import io.micrometer.common.KeyValues;

/**
 * What the default conventions of this package share: the observation's name, and the cluster as
 * the first low-cardinality key followed by what came of the observed work.
 *
 * @param <R> what came of the observed work
 * @param <C> the context observed
 */
abstract class ClusterObservationConvention<R, C extends ClusterObservationContext<?, R>> {

	private final String name;

	private final KeyValues notEnded;

	/**
	 * @param name the observation's name
	 * @param notEnded the low-cardinality keys after the cluster while nothing came of it (yet)
	 */
	ClusterObservationConvention(String name, KeyValues notEnded) {
		this.name = name;
		this.notEnded = notEnded;
	}

	public String getName() {
		return this.name;
	}

	public KeyValues getLowCardinalityKeyValues(C context) {
		R result = context.result;
		return KeyValues.of("polling.cluster", context.getClusterId())
			.and((result != null) ? ended(result) : this.notEnded);
	}

	/**
	 * The low-cardinality keys after the cluster once something came of it.
	 * @param result what came of it
	 * @return the keys
	 */
	abstract KeyValues ended(R result);

}
