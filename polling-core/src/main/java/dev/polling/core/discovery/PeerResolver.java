package dev.polling.core.discovery;

import java.io.IOException;
import java.net.InetAddress;
import java.security.Security;
import java.time.Duration;
import java.util.List;

/**
 * Resolves a DNS name to every address it stands for (all A and AAAA records, e.g. the pods behind
 * a Kubernetes headless service). Called on the discovery's own thread, never by a decision, so a
 * resolver that hangs delays only the next view of the peers. Inject another one in tests.
 */
@FunctionalInterface
public interface PeerResolver {

	/**
	 * The JDK's resolver ({@link InetAddress#getAllByName}). It caches answers for the JVM's
	 * {@code networkaddress.cache.ttl} (30 s unless set), which {@link #maxAnswerAge()} reports; this
	 * library never changes that setting.
	 */
	PeerResolver SYSTEM = new PeerResolver() {

		@Override
		public List<InetAddress> resolve(String name) throws IOException {
			return List.of(InetAddress.getAllByName(name));
		}

		@Override
		public Duration maxAnswerAge() {
			return jvmCacheTtl();
		}

		@Override
		public String toString() {
			return "the JDK resolver (InetAddress.getAllByName)";
		}

	};

	/**
	 * Every address the name resolves to now.
	 * @throws IOException when the name cannot be resolved now (unknown name, no DNS server): the
	 *         previous view is kept and ages ({@link DnsDiscovery})
	 */
	List<InetAddress> resolve(String name) throws IOException;

	/**
	 * How old an answer may be when {@link #resolve} returns it, because a cache sits in between:
	 * another instance may see a change this much later. Zero by default (no cache).
	 */
	default Duration maxAnswerAge() {
		return Duration.ZERO;
	}

	/**
	 * How long the JVM caches a successful lookup: the security property
	 * {@code networkaddress.cache.ttl}, else the system property {@code sun.net.inetaddr.ttl}, else
	 * 30 s; a negative value (forever) as a century. Read only.
	 */
	static Duration jvmCacheTtl() {
		String value = Security.getProperty("networkaddress.cache.ttl");
		if (value == null) {
			value = System.getProperty("sun.net.inetaddr.ttl");
		}
		if (value == null) {
			return Duration.ofSeconds(30);
		}
		try {
			long seconds = Long.parseLong(value.trim());
			return (seconds < 0) ? Duration.ofDays(36_500) : Duration.ofSeconds(seconds);
		}
		catch (NumberFormatException ex) {
			return Duration.ofSeconds(30);
		}
	}

}
