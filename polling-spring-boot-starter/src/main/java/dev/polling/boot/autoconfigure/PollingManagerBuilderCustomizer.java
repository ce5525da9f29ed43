package dev.polling.boot.autoconfigure;

import dev.polling.core.PollingManager;

/**
 * Customizes the {@link PollingManager.Builder} that the auto-configuration fills from the
 * properties, just before it builds the manager: for example a test replaces the transport to the
 * peers ({@link PollingManager.Builder#peerClient}) or the time source. Beans of this type are
 * applied in their order.
 */
@FunctionalInterface
public interface PollingManagerBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder, filled from the properties
	 */
	void customize(PollingManager.Builder builder);

}
