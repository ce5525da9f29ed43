/**
 * Test support for applications that use the polling starter: {@link dev.polling.test.PollingTest}
 * and {@link dev.polling.test.ScriptedPeers} decide in a Spring Boot test what the peers answer, in
 * one JVM and without JMX.
 */
@NullMarked
package dev.polling.test;

import org.jspecify.annotations.NullMarked;
