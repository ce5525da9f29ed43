/**
 * Auto-configuration, properties and start-up validation of the polling starter.
 */
@NullMarked
package dev.polling.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
