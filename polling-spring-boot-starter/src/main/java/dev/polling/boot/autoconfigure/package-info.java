/**
 * Auto-configuration of the polling starter: the polling manager, its JMX server and lifecycle;
 * the properties and their validation are in {@code dev.polling.boot.autoconfigure.properties}.
 */
@NullMarked
package dev.polling.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
