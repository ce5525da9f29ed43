package dev.polling.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Marks a method (or every public method of a class) as polling work of a cluster: after each call,
 * returning or throwing, the cluster's activity is refreshed, so a long cycle that processes many
 * items keeps its hold (seed: {@code @PollingAktion}). Activity extends a hold, it never creates
 * one: on an instance that does not hold the cluster the call changes nothing. The method itself
 * always runs; to run it only when granted, use {@link PollingCycle}.
 *
 * <pre class="code">
 * &#64;PollingAction("MAILABRUF_CLUSTER")
 * void process(Message message) { ... }
 * </pre>
 *
 * An unknown cluster id fails the application at startup.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(AdvisedMethodsProcessor.class)
public @interface PollingAction {

	/** The cluster id, as configured under {@code polling.clusters}; alias for {@link #cluster()}. */
	@AliasFor("cluster")
	String value() default "";

	/** The cluster id, as configured under {@code polling.clusters}. */
	@AliasFor("value")
	String cluster() default "";

}
