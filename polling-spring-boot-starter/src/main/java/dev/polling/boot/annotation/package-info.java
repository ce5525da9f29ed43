/**
 * The annotations an application puts on its methods: {@link dev.polling.boot.annotation.PollingCycle}
 * runs a method only while this instance may poll the cluster, {@link dev.polling.boot.annotation.PollingAction}
 * records polling activity after a method. Both are meta-annotated with Spring's
 * {@link org.springframework.aot.hint.annotation.Reflective @Reflective}, so ahead-of-time processing
 * registers the annotated methods of beans for reflective invocation, as the advisor that applies
 * them (in {@code dev.polling.boot.aop}) invokes them in a native image.
 */
@NullMarked
package dev.polling.boot.annotation;

import org.jspecify.annotations.NullMarked;
