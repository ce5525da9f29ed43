/**
 * The {@code polling} actuator endpoint.
 */
@NullMarked
package dev.polling.boot.actuate;

import org.jspecify.annotations.NullMarked;
