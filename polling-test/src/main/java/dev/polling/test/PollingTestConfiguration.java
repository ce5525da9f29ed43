package dev.polling.test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.boot.autoconfigure.PollingManagerBuilderCustomizer;
import dev.polling.boot.autoconfigure.properties.PollingProperties;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PollingManager;

/**
 * Gives the auto-configured {@link PollingManager} the {@link ScriptedPeers} as its transport (and
 * one scripted peer when the application configures none), and makes the instance hold the
 * clusters named in {@link PollingTest#holding()} once the context is up.
 */
@Configuration(proxyBeanMethods = false)
class PollingTestConfiguration {

	@Bean
	PollingManagerBuilderCustomizer pollingTestPeerClient(ScriptedPeers peers, ObjectProvider<PollingProperties> properties) {
		return (builder) -> {
			builder.peerClient(peers);
			PollingProperties configured = properties.getIfAvailable();
			if (configured == null || configured.getJmx().getPeers().isEmpty()) {
				// a host that cannot resolve (RFC 6761): nothing ever connects to it, the scripted peers answer
				builder.peer(PeerDefinition.of(ScriptedPeers.PEER_ID, ScriptedPeers.PEER_ID + ".invalid", 1));
			}
		};
	}

	@Bean
	static SmartInitializingSingleton pollingTestAttach(ObjectProvider<PollingManager> manager, ObjectProvider<ScriptedPeers> peers,
			ObjectProvider<Script> script) {
		return () -> {
			ScriptedPeers scripted = peers.getObject();
			PollingManager polling = manager.getIfAvailable();
			Script named = script.getObject();
			if (polling == null) {
				if (!named.all().isEmpty()) {
					throw new IllegalStateException("@PollingTest names clusters " + named.all() + ", but the application has no "
							+ "PollingManager (polling.enabled=false, or no polling.clusters are defined)");
				}
				return;
			}
			for (String clusterId : named.all()) {
				if (!polling.clusterIds().contains(clusterId)) {
					throw new IllegalStateException("@PollingTest names cluster '" + clusterId + "', which the application does not define; "
							+ "known clusters: " + new TreeSet<>(polling.clusterIds()));
				}
			}
			scripted.attach(polling);
			for (String clusterId : named.holding()) {
				scripted.holdHere(clusterId);
			}
		};
	}

	/** The clusters named in a {@link PollingTest}. */
	record Script(List<String> holding, List<String> peerHolding, List<String> peerUnreachable) {

		List<String> all() {
			List<String> all = new ArrayList<>(this.holding);
			all.addAll(this.peerHolding);
			all.addAll(this.peerUnreachable);
			return all;
		}

	}

}
