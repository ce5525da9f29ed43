/**
 * Polling clusters: which instance of an application may poll a shared source now. This package
 * holds the API, the coordination SPI and the machinery behind both; a reading guide follows.
 *
 * <h2>The path of a decision</h2>
 * <ol>
 * <li>{@link dev.polling.core.PollingManager} is the entry: built with
 * {@link dev.polling.core.PollingManager#builder()} from {@link dev.polling.core.PollingSettings}
 * (this instance), {@link dev.polling.core.ClusterDefinition}s and
 * {@link dev.polling.core.PeerDefinition}s or a {@link dev.polling.core.ClusterCoordinator} per
 * cluster. {@code decide}, {@code runIfGranted} and {@code recordActivity} look the cluster up and
 * hand over to its {@code ClusterRuntime}.</li>
 * <li>{@code ClusterRuntime} is one cluster in this instance: it runs the cluster's decisions one at
 * a time and its cycles one at a time (a second cycle is refused without asking anyone), answers
 * a closed or paused cluster itself, grants an instance without peers (standalone), and otherwise
 * hands the decision to {@code CoordinatedCluster} when the cluster has a coordinator, else to
 * {@code PeerDecider}. {@code LocalInstance} is what the clusters of one manager
 * share (settings, incarnation, clock, peer client, stop source, balancing).</li>
 * <li>{@code HoldState} is the cluster's hold as one immutable value swapped with compare-and-set:
 * activity extends it, release/pause/close start a new generation, and a grant succeeds only for
 * the {@code Ticket} of its announcement, so nothing that happens during an acquisition is
 * overwritten.</li>
 * <li>{@code PeerDecider} asks the peers ({@code PeerSurvey}, through the {@link dev.polling.core.PeerClient}),
 * waits the settle time and applies each step to the {@code HoldState};
 * {@code Protocol} is the decision itself, a pure function from what this instance knows of itself
 * ({@code Protocol.Self}) and what the peers answered ({@link dev.polling.core.PeerObservation}) to
 * the next step: {@code renewal} for a holder, {@code firstRound} and {@code secondRound} for a
 * candidate. Read {@code Protocol} to know when an instance polls.</li>
 * <li>The outcome is a {@link dev.polling.core.Decision} (granted or refused, with a
 * {@link dev.polling.core.Decision.Reason} and the observations); {@code Events} passes decisions,
 * peer observations, hold changes and cycle overruns to the {@link dev.polling.core.PollingListener},
 * and the span of each decision and peer request to the {@link dev.polling.core.DecisionObserver}
 * (tracing).</li>
 * </ol>
 *
 * <h2>What each package holds</h2>
 * <ul>
 * <li>{@code dev.polling.core}: the API ({@code PollingManager}, the definitions and settings,
 * {@code Decision}, {@link dev.polling.core.ClusterStatus}, the listener and observer), the SPI
 * other modules implement ({@link dev.polling.core.ClusterCoordinator}: polling-jdbc, -shedlock and
 * -kubernetes; {@link dev.polling.core.PeerClient} and {@link dev.polling.core.PeerClientFactory}:
 * the JMX transport; {@link dev.polling.core.TimeSource}: tests and simulations), the JMX contract
 * ({@link dev.polling.core.JmxContract}, {@link dev.polling.core.JmxNames}, the MXBean interfaces
 * and the package-private {@code ClusterMBean}), and the package-private machinery above. The SPI
 * and the contract stay here because their signatures use the API's values (a coordinator acquires
 * a {@code ClusterDefinition}, a peer client returns {@code PeerObservation}s, the settings name a
 * {@code JmxContract}) while the API takes them: in a package of their own they would form a cycle
 * with this one.</li>
 * <li>{@link dev.polling.core.discovery}: peers from DNS ({@code DnsDiscovery}, {@code PeerResolver},
 * {@code DiscoveredPeer}); the resolving thread and the view's ageing are the package-private
 * {@code PeerDiscovery} here, as they work on the clusters' runtime state.</li>
 * <li>{@link dev.polling.core.jmx}: the JMX transport: the peer client (loaded through
 * {@code META-INF/services/dev.polling.core.PeerClientFactory}, so that {@code dev.polling.core} does
 * not depend on it) and the connector server.</li>
 * </ul>
 *
 * <h2>Where to start</h2>
 * <ul>
 * <li>When does an instance poll, and why can two not both be granted? {@code Protocol}, then
 * {@code PeerDecider}; the tests {@code AcquisitionInterleavingTest}, {@code AgreementTest} and the
 * seeded simulation in {@code dev.polling.core.sim} ({@code SimulationTest}).</li>
 * <li>What happens to a hold on release, pause, shutdown, a long cycle or a stopped JVM?
 * {@code HoldState} and {@code ClusterRuntime}; {@code StopDetector} for stops.</li>
 * <li>Clusters decided by a database or a lease? {@link dev.polling.core.ClusterCoordinator} and
 * {@code CoordinatedCluster}.</li>
 * <li>What a peer reads over JMX? {@code ClusterMBean} and {@link dev.polling.core.JmxContract}
 * (this library's contract and isy-polling's).</li>
 * <li>Which builder values are refused, with which message? {@code BuilderChecks}.</li>
 * </ul>
 */
@NullMarked
package dev.polling.core;

import org.jspecify.annotations.NullMarked;
