/**
 * Polling clusters: the coordination API (definitions, decisions, listener SPI).
 */
@NullMarked
package dev.polling.core;

import org.jspecify.annotations.NullMarked;
