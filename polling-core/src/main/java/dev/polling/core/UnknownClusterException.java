package dev.polling.core;

import java.util.Collection;

/** A cluster id that is not defined: a programming error. The message lists the known ids. */
public class UnknownClusterException extends IllegalArgumentException {

	private final String clusterId;

	public UnknownClusterException(String clusterId, Collection<String> knownIds) {
		super("Unknown polling cluster '" + clusterId + "'; known clusters: " + knownIds
				+ ". Define it under polling.clusters or fix the id.");
		this.clusterId = clusterId;
	}

	public String getClusterId() {
		return this.clusterId;
	}

}
