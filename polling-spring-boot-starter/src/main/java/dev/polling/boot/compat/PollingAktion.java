package dev.polling.boot.compat;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

import dev.polling.boot.aop.PollingAction;

/**
 * isy-polling's {@code @PollingAktion(pollingCluster = "...")}: the same as
 * {@link PollingAction @PollingAction}, which it is meta-annotated with. After each call of the
 * method the cluster's activity is refreshed (a hold is extended, never created). Unknown cluster
 * ids fail the startup. New code should use {@link PollingAction}.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@PollingAction
public @interface PollingAktion {

	/** The cluster id, as configured under {@code polling.clusters} (or {@code isy.polling.cluster}). */
	@AliasFor(annotation = PollingAction.class, attribute = "cluster")
	String pollingCluster();

}
