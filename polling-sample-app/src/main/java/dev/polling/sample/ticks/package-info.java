/**
 * Clusters that only exist for the chaos run (Spring profile {@code chaos}): many clusters decided
 * at the same moment, with ticks longer than the JMX server's idle timeout.
 */
@NullMarked
package dev.polling.sample.ticks;

import org.jspecify.annotations.NullMarked;
