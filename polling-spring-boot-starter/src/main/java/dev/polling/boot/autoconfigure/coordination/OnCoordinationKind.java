package dev.polling.boot.autoconfigure.coordination;

import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether some cluster is coordinated by a kind: {@code polling.coordination} names it, or
 * {@code polling.clusters.<id>.coordination} does for at least one cluster. A coordinator is
 * built only for a kind in use, so an application that carries a module without using it pays
 * nothing for it.
 */
public abstract class OnCoordinationKind extends SpringBootCondition {

	private final String kind;

	protected OnCoordinationKind(String kind) {
		this.kind = kind;
	}

	/**
	 * Whether some cluster is coordinated by the kind.
	 * @param environment the environment
	 * @param kind the kind as written in the properties ({@code jdbc}, {@code shedlock}, ...)
	 * @return whether the global setting or a cluster's names it
	 */
	public static boolean uses(Environment environment, String kind) {
		if (kind.equals(normalized(environment.getProperty("polling.coordination.kind")))) {
			return true;
		}
		Map<String, ClusterCoordination> clusters = Binder.get(environment)
			.bind("polling.clusters", Bindable.mapOf(String.class, ClusterCoordination.class))
			.orElse(Map.of());
		return clusters.values().stream().anyMatch((cluster) -> kind.equals(normalized(cluster.getCoordination())));
	}

	private static @Nullable String normalized(@Nullable String value) {
		return (value != null) ? value.strip().toLowerCase(Locale.ROOT) : null;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return uses(context.getEnvironment(), this.kind)
				? ConditionOutcome.match("a cluster is coordinated through " + this.kind)
				: ConditionOutcome.noMatch("no cluster has coordination " + this.kind);
	}

	/** The one setting of a cluster read here; the others are ignored by the binder. */
	public static final class ClusterCoordination {

		private @Nullable String coordination;

		public @Nullable String getCoordination() {
			return this.coordination;
		}

		public void setCoordination(@Nullable String coordination) {
			this.coordination = coordination;
		}

	}

	static final class ShedLock extends OnCoordinationKind {

		ShedLock() {
			super("shedlock");
		}

	}

	static final class Kubernetes extends OnCoordinationKind {

		Kubernetes() {
			super("kubernetes");
		}

	}

}
