package dev.polling.core.discovery;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Peers from a DNS name: every address the name resolves to (a Kubernetes headless service, a
 * round-robin record) is a peer at the given JMX port, besides the static peers. The name is
 * resolved again every {@code interval} on a thread of its own; a decision never waits for it.
 *
 * <p>What keeps it safe (see docs/protocol.md, "Peers from DNS"): an address missing from the
 * answers stays a peer, and is asked, until it has been missing for one wait time, so a DNS blip
 * grants nobody; an instance acquires only once its own address has been in the answers for
 * {@link #settleTime(Duration, Duration) two intervals plus the longest decision} (so every peer has resolved
 * it), and only while its latest successful resolution started at most two intervals ago; a hold is
 * let go when the view gets older than that, or when this instance's own address has been missing
 * for half a wait time, well before the peers drop it.
 *
 * @param name the DNS name to resolve ({@code orders-polling.prod.svc.cluster.local})
 * @param port the JMX port of every instance behind the name (1-65535)
 * @param interval how often the name is resolved again; at most a quarter of every wait time
 * @param username user for JMX authentication at the discovered peers, or null
 * @param password password for JMX authentication at the discovered peers, or null; requires a username
 */
public record DnsDiscovery(String name, int port, Duration interval, @Nullable String username, @Nullable String password) {

	/** Default re-resolve interval: 2 seconds (a quarter of it fits the shortest wait time, 10 s). */
	public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);

	/** Shortest interval accepted: 100 milliseconds. */
	public static final Duration MIN_INTERVAL = Duration.ofMillis(100);

	public DnsDiscovery {
		Objects.requireNonNull(name, "DNS discovery name must not be null");
		if (name.isBlank() || name.indexOf(' ') >= 0 || name.indexOf(':') >= 0) {
			throw new IllegalArgumentException("DNS discovery name '" + name
					+ "' is not a host name; set a DNS name such as orders-polling.prod.svc.cluster.local (the port goes into port)");
		}
		if (port < 1 || port > 65535) {
			throw new IllegalArgumentException("DNS discovery port " + port + " is out of range; use the instances' JMX port (1-65535)");
		}
		interval = (interval != null) ? interval : DEFAULT_INTERVAL;
		if (interval.compareTo(MIN_INTERVAL) < 0) {
			throw new IllegalArgumentException("DNS discovery interval " + interval.toMillis() + " ms is shorter than "
					+ MIN_INTERVAL.toMillis() + " ms; use e.g. 2s");
		}
		if (password != null && (username == null || username.isBlank())) {
			throw new IllegalArgumentException("DNS discovery: a password is set without a username; set the username too");
		}
	}

	/** Peers from this name at this JMX port, resolved every {@link #DEFAULT_INTERVAL}, without authentication. */
	public static DnsDiscovery of(String name, int port) {
		return new DnsDiscovery(name, port, DEFAULT_INTERVAL, null, null);
	}

	public DnsDiscovery withInterval(Duration interval) {
		return new DnsDiscovery(this.name, this.port, interval, this.username, this.password);
	}

	public DnsDiscovery withCredentials(String username, String password) {
		return new DnsDiscovery(this.name, this.port, this.interval, username, password);
	}

	/** How old the latest successful resolution may be (counted from its start) for this instance to acquire or hold: two intervals. */
	public Duration freshness() {
		return this.interval.multipliedBy(2);
	}

	/**
	 * How long this instance's own address must have been in the answers before it acquires: the
	 * freshness plus how old a cached answer may be plus the longest decision, so that every peer
	 * that acquires meanwhile has a view that includes it.
	 * @param longestDecision the longest a decision may take (two peer timeouts, the settle time and a margin)
	 * @param maxAnswerAge how old an answer of the resolver may be ({@link PeerResolver#maxAnswerAge()})
	 */
	public Duration settleTime(Duration longestDecision, Duration maxAnswerAge) {
		return freshness().plus(maxAnswerAge).plus(longestDecision);
	}

	@Override
	public String toString() {
		return "DnsDiscovery[name=" + this.name + ", port=" + this.port + ", interval=" + this.interval.toMillis() + "ms"
				+ ((this.username != null) ? ", username=" + this.username + ", password=" + ((this.password != null) ? "******" : "none") : "")
				+ "]";
	}

}
