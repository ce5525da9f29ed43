/**
 * What the demo and the chaos run add to each sample-app instance, from this module's instance jar
 * ({@code polling-e2e-<version>-instance.jar}) that the driver puts on the instance's class path
 * with the Spring Boot launcher's {@code loader.path}; the sample itself knows nothing of it. An
 * auto-configuration ({@link InstanceAdditions}) brings the watchdog that ends an instance with its
 * driver, and with the Spring profile {@code chaos} the tick clusters: many clusters decided at the
 * same moment, with ticks longer than the JMX server's idle timeout ({@code application-chaos.yml}).
 */
@NullMarked
package dev.polling.e2e.instance;

import org.jspecify.annotations.NullMarked;
