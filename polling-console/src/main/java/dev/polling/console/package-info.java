/**
 * The operator console: a page served by the application itself under the actuator's base path.
 */
@NullMarked
package dev.polling.console;

import org.jspecify.annotations.NullMarked;
