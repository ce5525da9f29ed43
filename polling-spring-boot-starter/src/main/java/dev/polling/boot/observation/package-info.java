/**
 * Micrometer observations of polling decisions and peer requests.
 */
@NullMarked
package dev.polling.boot.observation;

import org.jspecify.annotations.NullMarked;
