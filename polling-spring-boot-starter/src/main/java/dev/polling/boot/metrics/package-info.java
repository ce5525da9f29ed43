/**
 * Micrometer meters of the polling clusters.
 */
@NullMarked
package dev.polling.boot.metrics;

import org.jspecify.annotations.NullMarked;
