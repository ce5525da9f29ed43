/**
 * Benchmark harnesses; run them as described in {@code docs/benchmarks.md}, never during the build.
 */
@NullMarked
package dev.polling.benchmarks;

import org.jspecify.annotations.NullMarked;
