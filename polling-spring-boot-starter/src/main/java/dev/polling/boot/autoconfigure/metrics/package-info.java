/**
 * Auto-configuration of the polling Micrometer meters.
 */
@NullMarked
package dev.polling.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
