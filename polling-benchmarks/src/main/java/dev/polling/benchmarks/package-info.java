/**
 * Benchmark harnesses. Each is a main class run in its own JVM by {@code polling-benchmarks/run.sh};
 * results go to {@code docs/benchmarks.md}.
 */
package dev.polling.benchmarks;
