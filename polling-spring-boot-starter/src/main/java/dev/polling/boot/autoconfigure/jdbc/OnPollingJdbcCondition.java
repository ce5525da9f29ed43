package dev.polling.boot.autoconfigure.jdbc;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.polling.boot.autoconfigure.coordination.OnCoordinationKind;

/**
 * What of the database parts an application opted into. The parts are off unless switched on
 * ({@code polling.jdbc.inbox|queue|delivery|jobs.enabled=true}), as Quartz keeps its JDBC store
 * off unless asked; database coordination is on when a cluster uses it ({@code polling.coordination}
 * or {@code polling.clusters.<id>.coordination} set to {@code jdbc}) or the jobs part runs (its
 * dispatcher holds a row). These are properties of the application's design, the same on every
 * instance, not per-deployment values such as ports.
 */
final class OnPollingJdbcCondition {

	private OnPollingJdbcCondition() {
	}

	static boolean part(Environment environment, String part) {
		return environment.getProperty("polling.jdbc." + part + ".enabled", Boolean.class, false);
	}

	static boolean anyPart(Environment environment) {
		return part(environment, "inbox") || part(environment, "queue") || part(environment, "delivery") || part(environment, "jobs");
	}

	static boolean coordination(Environment environment) {
		return OnCoordinationKind.uses(environment, "jdbc") || part(environment, "jobs");
	}

	/** Some cluster is coordinated through the database, or the jobs part runs. */
	static final class Coordination extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return coordination(context.getEnvironment())
					? ConditionOutcome.match("a cluster is coordinated through the database, or polling.jdbc.jobs.enabled")
					: ConditionOutcome.noMatch("no cluster has coordination jdbc and the jobs part is off");
		}

	}

	/** Any database part is switched on, or a cluster is coordinated through the database. */
	static final class AnyUse extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Environment environment = context.getEnvironment();
			return (anyPart(environment) || coordination(environment))
					? ConditionOutcome.match("a database part is switched on or a cluster is coordinated through the database")
					: ConditionOutcome.noMatch("no polling.jdbc.<part>.enabled=true and no cluster with coordination jdbc");
		}

	}

}
