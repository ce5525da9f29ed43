package dev.polling.core;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;

/**
 * Resolves a DNS name to every address it stands for (all A and AAAA records, e.g. the pods behind
 * a Kubernetes headless service). Called on the discovery's own thread, never by a decision, so a
 * resolver that hangs delays only the next view of the peers. Inject another one in tests.
 */
@FunctionalInterface
public interface PeerResolver {

	/** The JDK's resolver ({@link InetAddress#getAllByName}), with the JVM's own caching. */
	PeerResolver SYSTEM = (name) -> List.of(InetAddress.getAllByName(name));

	/**
	 * Every address the name resolves to now.
	 * @throws IOException when the name cannot be resolved now (unknown name, no DNS server): the
	 *         previous view is kept and ages ({@link DnsDiscovery})
	 */
	List<InetAddress> resolve(String name) throws IOException;

}
