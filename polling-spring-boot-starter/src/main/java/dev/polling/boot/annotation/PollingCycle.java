package dev.polling.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Gates a method, usually a {@code @Scheduled} one, by a polling cluster: each call first asks the
 * peers whether this instance may poll, runs the method only when granted, and refreshes the
 * cluster's activity at its end (also when it throws). While a cycle of the same cluster runs in
 * this instance, another call is skipped without asking the peers. A skipped call returns
 * {@code null}, so the method must return {@code void} or an object type; a primitive return type
 * fails at startup, as does an unknown cluster id.
 *
 * <pre class="code">
 * &#64;Scheduled(fixedDelay = 5, timeUnit = TimeUnit.MINUTES)
 * &#64;PollingCycle("MAILABRUF_CLUSTER")
 * void fetchMail() { ... }
 * </pre>
 *
 * @see dev.polling.core.PollingManager#runIfGranted(String, dev.polling.core.PollingManager.CycleTask)
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(AdvisedMethodsProcessor.class)
public @interface PollingCycle {

	/** The cluster id, as configured under {@code polling.clusters}; alias for {@link #cluster()}. */
	@AliasFor("cluster")
	String value() default "";

	/** The cluster id, as configured under {@code polling.clusters}. */
	@AliasFor("value")
	String cluster() default "";

}
