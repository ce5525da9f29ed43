package dev.polling.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.polling.core.Decision.Reason;
import dev.polling.core.DnsCluster.Node;
import dev.polling.core.discovery.DnsDiscovery;
import dev.polling.core.discovery.DiscoveredPeer;
import dev.polling.core.discovery.PeerResolver;

/**
 * Peers from a DNS name, step by step on a manual clock ({@link DnsCluster}): a blip of the name
 * grants nobody, a peer missing for a wait time is dropped (and lets go first), a new instance is
 * asked from the next decision on and acquires only once every peer has resolved it, and a resolver
 * that hangs never stalls a decision. After every decision at most one instance holds the cluster.
 */
class DnsDiscoveryTest {

	private final DnsCluster dns = new DnsCluster();

	@AfterEach
	void close() {
		this.dns.close();
	}

	/** Every running instance resolves (unless its resolver hangs) and decides; then the clock moves one second. */
	private void tick() {
		round();
		this.dns.time.advance(Duration.ofSeconds(1));
	}

	/** Every running instance resolves (unless its resolver hangs) and decides. */
	private void round() {
		for (Node node : this.dns.nodes.values()) {
			if (node.running) {
				node.refresh();
				node.decide();
				assertThat(this.dns.holders()).as("holders at %s", this.dns.time.now()).hasSizeLessThanOrEqualTo(1);
			}
		}
	}

	private void ticks(int n) {
		for (int i = 0; i < n; i++) {
			tick();
		}
	}

	private Node holderAfterStart(String... addresses) {
		char id = 'a';
		for (String address : addresses) {
			this.dns.start(String.valueOf(id++), address);
			this.dns.records.add(address);
		}
		for (int i = 0; i < 30 && this.dns.holders().isEmpty(); i++) {
			tick();
		}
		assertThat(this.dns.holders()).hasSize(1);
		return this.dns.nodes.values().stream().filter(Node::holds).findFirst().orElseThrow();
	}

	@Test
	void aBlipOfTheWholeNameShorterThanHalfAWaitTimeChangesNothing() {
		Node holder = holderAfterStart("10.0.0.1", "10.0.0.2", "10.0.0.3");
		this.dns.records.clear();
		for (int i = 0; i < 4; i++) {
			tick();
			assertThat(this.dns.holders()).containsExactly(holder.id);
			this.dns.nodes.values().forEach((node) -> assertThat(node.peerIds()).hasSize(3));
			this.dns.nodes.values().forEach((node) -> assertThat(node.manager.discoveredPeers()).allMatch(DiscoveredPeer::isMissing));
		}
		this.dns.records.addAll(List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"));
		ticks(10);
		assertThat(this.dns.holders()).containsExactly(holder.id);
		this.dns.nodes.values().forEach((node) -> assertThat(node.manager.discoveredPeers()).noneMatch(DiscoveredPeer::isMissing));
	}

	@Test
	void aHolderMissingFromTheNameForHalfAWaitTimeLetsGoAndAnotherTakesOverWithoutOverlap() {
		Node holder = holderAfterStart("10.0.0.1", "10.0.0.2", "10.0.0.3");
		this.dns.records.remove(holder.address);
		ticks(4);
		assertThat(this.dns.holders()).containsExactly(holder.id);
		ticks(3); // missing for 6 s of a 10 s wait time: it let go at 5 s, still asked by the others
		assertThat(holder.holds()).isFalse();
		assertThat(this.dns.holders()).hasSize(1);
		this.dns.nodes.values().forEach((node) -> assertThat(node.peerIds()).hasSize(3));
		this.dns.records.add(holder.address);
		ticks(10);
		assertThat(this.dns.holders()).hasSize(1).doesNotContain(holder.id);
	}

	@Test
	void aPeerMissingForLongerThanAWaitTimeIsDroppedAndItDoesNotHoldMeanwhile() {
		Node holder = holderAfterStart("10.0.0.1", "10.0.0.2", "10.0.0.3");
		String holderPeerId = holder.address + ":" + DnsCluster.PORT;
		this.dns.records.remove(holder.address);
		ticks(9);
		this.dns.nodes.values().stream().filter((node) -> node != holder)
			.forEach((node) -> assertThat(node.peerIds()).contains(holderPeerId));
		ticks(3);
		this.dns.nodes.values().stream().filter((node) -> node != holder)
			.forEach((node) -> assertThat(node.peerIds()).hasSize(2).doesNotContain(holderPeerId));
		assertThat(this.dns.holders()).hasSize(1).doesNotContain(holder.id);
		Decision decision = holder.decide();
		assertThat(decision.reason()).isEqualTo(Reason.DISCOVERY_PENDING);
		assertThat(decision.detail()).contains("does not resolve to this instance");
	}

	@Test
	void aNewInstanceIsAskedFromTheNextDecisionAndAcquiresOnlyOnceEveryPeerHasResolvedIt() {
		Node a = holderAfterStart("10.0.0.1");
		Node d = this.dns.start("d", "10.0.0.4");
		this.dns.records.add("10.0.0.4");
		// a let go just now and has not resolved the name since d appeared (its view is one second old, fresh)
		d.refresh();
		a.manager.pause(DnsCluster.CLUSTER);
		Decision first = d.decide();
		a.manager.resume(DnsCluster.CLUSTER);
		a.decide();
		assertThat(this.dns.holders()).containsExactly(a.id);
		assertThat(first.reason()).isEqualTo(Reason.DISCOVERY_PENDING);
		assertThat(first.detail()).contains("first resolved");
		assertThat(a.peerIds()).containsExactly("10.0.0.1:9010");
		ticks(1);
		assertThat(a.peerIds()).containsExactly("10.0.0.1:9010", "10.0.0.4:9010");
		ticks(10);
		assertThat(d.decide().reason()).isEqualTo(Reason.PEER_ACTIVE);
		assertThat(this.dns.holders()).containsExactly(a.id);
	}

	@Test
	void aHolderWhoseResolverHangsLetsGoAfterTwoIntervals() {
		Node holder = holderAfterStart("10.0.0.1", "10.0.0.2");
		holder.resolverHangs = true;
		round();
		assertThat(this.dns.holders()).containsExactly(holder.id);
		ticks(2);
		assertThat(holder.holds()).isFalse();
		assertThat(holder.decide().detail()).contains("more than two intervals");
		ticks(1);
		assertThat(this.dns.holders()).hasSize(1).doesNotContain(holder.id);
	}

	@Test
	void aFailingResolverKeepsThePeersUntilTheViewIsTooOld() {
		Node holder = holderAfterStart("10.0.0.1", "10.0.0.2");
		this.dns.nodes.values().forEach((node) -> node.resolverFails = true);
		round();
		assertThat(this.dns.holders()).containsExactly(holder.id);
		this.dns.nodes.values().forEach((node) -> assertThat(node.peerIds()).hasSize(2));
		ticks(3);
		assertThat(this.dns.holders()).isEmpty();
		this.dns.nodes.values().forEach((node) -> node.resolverFails = false);
		ticks(6);
		assertThat(this.dns.holders()).hasSize(1);
	}

	@Test
	@Timeout(60) // a guard against a hang, not a measure of speed
	void aResolverThatHangsNeverStallsADecision() throws Exception {
		CountDownLatch resolving = new CountDownLatch(1);
		CountDownLatch never = new CountDownLatch(1);
		PeerResolver hanging = (name) -> {
			resolving.countDown();
			try {
				never.await();
			}
			catch (InterruptedException ex) {
				throw new java.io.InterruptedIOException("closed");
			}
			return List.of(InetAddress.getLoopbackAddress());
		};
		try (PollingManager manager = PollingManager.builder()
			.settings(PollingSettings.defaults().withInstanceId("a").withPeerTimeout(Duration.ofMillis(500)))
			.cluster(ClusterDefinition.of(DnsCluster.CLUSTER, DnsCluster.WAIT))
			.discovery(DnsDiscovery.of(DnsCluster.NAME, DnsCluster.PORT))
			.peerResolver(hanging)
			.build()) {
			resolving.await();
			Decision decision = manager.decide(DnsCluster.CLUSTER);
			assertThat(decision.reason()).isEqualTo(Reason.DISCOVERY_PENDING);
			assertThat(decision.detail()).contains("has not been resolved yet");
			assertThat(never.getCount()).isEqualTo(1);
		}
	}

}
