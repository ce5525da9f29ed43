package dev.polling.boot.autoconfigure;

import java.util.Objects;
import dev.polling.core.CoordinationKind;

import dev.polling.core.ClusterCoordinator;

/**
 * A coordinator that the starter gives to every cluster configured with the registration's kind
 * ({@code polling.coordination} or {@code polling.clusters.<id>.coordination}). The starter's
 * ShedLock and Kubernetes auto-configurations register one each; an application may register its
 * own for a kind instead (the auto-configured one then backs off). JDBC coordination keeps its
 * {@code JdbcCoordinator} bean (or the application's single {@link ClusterCoordinator} bean).
 *
 * @param kind the coordination kind whose clusters use the coordinator
 * @param coordinator the coordinator
 */
public record PollingCoordinatorRegistration(CoordinationKind kind, ClusterCoordinator coordinator) {

	public PollingCoordinatorRegistration {
		Objects.requireNonNull(kind, "kind must not be null");
		Objects.requireNonNull(coordinator, "coordinator must not be null");
		if (kind == CoordinationKind.JMX) {
			throw new IllegalArgumentException("kind JMX takes no coordinator: JMX clusters ask their peers");
		}
	}

}
