package dev.polling.boot.observation;

import dev.polling.core.Decision;
import dev.polling.core.DecisionObserver;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Each polling decision as a Micrometer {@link Observation} ({@code polling.decision}), and each
 * request to a peer during it as a child observation ({@code polling.peer.request}), so that
 * tracing shows which instance polled, why, and how long each peer took to answer. They are not
 * meters: the starter's auto-configuration keeps them out of the meter registries, as
 * {@code polling.decision.duration} and {@code polling.peer.requests} measure the same. The decision's observation is opened in
 * scope on the deciding thread: work the decision calls (a coordinator's database statements)
 * nests under it. Names and tags come from the conventions.
 */
public class PollingObservations implements DecisionObserver {

	private final ObservationRegistry registry;

	private final Supplier<String> instanceId;

	private final @Nullable PollingDecisionObservationConvention decisionConvention;

	private final @Nullable PollingPeerRequestObservationConvention peerRequestConvention;

	private static final PollingDecisionObservationConvention DEFAULT_DECISION = new DefaultPollingDecisionObservationConvention();

	private static final PollingPeerRequestObservationConvention DEFAULT_PEER_REQUEST = new DefaultPollingPeerRequestObservationConvention();

	/**
	 * Creates the observer.
	 * @param registry where the observations go
	 * @param instanceId this instance's id (read at each decision: the manager is built after this)
	 * @param decisionConvention a custom convention for decisions, or {@code null} for the default
	 * @param peerRequestConvention a custom convention for peer requests, or {@code null} for the default
	 */
	public PollingObservations(ObservationRegistry registry, Supplier<String> instanceId,
			@Nullable PollingDecisionObservationConvention decisionConvention,
			@Nullable PollingPeerRequestObservationConvention peerRequestConvention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.instanceId = Objects.requireNonNull(instanceId, "instanceId must not be null");
		this.decisionConvention = decisionConvention;
		this.peerRequestConvention = peerRequestConvention;
	}

	@Override
	public DecisionSpan decisionStarting(String clusterId) {
		if (this.registry.isNoop()) {
			return DecisionSpan.NONE;
		}
		PollingDecisionContext context = new PollingDecisionContext(clusterId, this.instanceId.get());
		Observation observation = Observation
			.createNotStarted(this.decisionConvention, DEFAULT_DECISION, () -> context, this.registry)
			.start();
		Observation.Scope scope = observation.openScope();
		return new DecisionSpan() {

			@Override
			public PeerRequestSpan peerRequestStarting(PeerDefinition peer) {
				PollingPeerRequestContext request = new PollingPeerRequestContext(clusterId, peer);
				Observation child = Observation
					.createNotStarted(PollingObservations.this.peerRequestConvention, DEFAULT_PEER_REQUEST, () -> request,
							PollingObservations.this.registry)
					.parentObservation(observation)
					.start();
				return (PeerObservation answer) -> {
					request.result = answer;
					child.stop();
				};
			}

			@Override
			public void ended(Decision decision) {
				context.result = decision;
				scope.close();
				observation.stop();
			}

			@Override
			public void failed(RuntimeException failure) {
				observation.error(failure);
				scope.close();
				observation.stop();
			}

		};
	}

}
