/**
 * Benchmark harnesses. Each is a main class run in its own JVM by {@code polling-benchmarks/run.sh}
 * (never during the build); results and commands are in {@code docs/benchmarks.md}.
 */
@NullMarked
package dev.polling.benchmarks;

import org.jspecify.annotations.NullMarked;
