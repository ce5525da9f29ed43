/**
 * Auto-configuration of the observations of polling decisions.
 */
@NullMarked
package dev.polling.boot.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
