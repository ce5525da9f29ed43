/**
 * The Spring AOP advisor (no AspectJ weaver) that applies the annotations of
 * {@code dev.polling.boot.annotation} to beans, and the startup checks and reports about their use.
 */
@NullMarked
package dev.polling.boot.aop;

import org.jspecify.annotations.NullMarked;
