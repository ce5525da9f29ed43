/**
 * Auto-configuration of the {@code polling} actuator endpoint.
 */
@NullMarked
package dev.polling.boot.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
