/**
 * Annotations that gate scheduled methods and record polling activity, applied by a Spring AOP advisor (no AspectJ weaver).
 */
@NullMarked
package dev.polling.boot.aop;

import org.jspecify.annotations.NullMarked;
