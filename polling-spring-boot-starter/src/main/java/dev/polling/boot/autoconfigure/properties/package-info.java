/**
 * The starter's configuration properties and everything that checks them, in one place:
 * <ul>
 * <li>the tree under {@code polling.*}: {@link dev.polling.boot.autoconfigure.properties.PollingProperties}
 * (clusters, coordination, shutdown, observations) with
 * {@link dev.polling.boot.autoconfigure.properties.JmxProperties} ({@code polling.jmx.*}), and
 * {@link dev.polling.boot.autoconfigure.properties.PollingJdbcProperties} ({@code polling.jdbc.*}), whose
 * queue and delivery guard share {@link dev.polling.boot.autoconfigure.properties.JdbcPartProperties};</li>
 * <li>one validator per properties class ({@code PollingPropertiesValidator},
 * {@code PollingJdbcPropertiesValidator}), run by Spring Boot at bind time because each
 * properties class is its own {@code Validator}; every mistake is reported with the key as
 * written, the value and the fix ({@link dev.polling.boot.autoconfigure.properties.PollingPropertyErrors});</li>
 * <li>what Spring Boot's binder cannot tell: keys nobody reads, with the nearest known one
 * ({@code UnknownPollingPropertiesReporter}, from {@code PollingPropertyKeys}), durations written
 * without a unit ({@code UnitlessDurationsReporter}), and the previous version's keys read under
 * their new names ({@link dev.polling.boot.autoconfigure.properties.DeprecatedPollingProperties});</li>
 * <li>the failure analysis that prints a configuration error as Property / Value / Origin / Reason /
 * Fix ({@link dev.polling.boot.autoconfigure.properties.PollingFailureAnalyzer}).</li>
 * </ul>
 * The auto-configurations read these classes; nothing here depends on them.
 */
@NullMarked
package dev.polling.boot.autoconfigure.properties;

import org.jspecify.annotations.NullMarked;
