package dev.polling.boot.aot;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.jspecify.annotations.Nullable;

/**
 * What a native image of a polling application needs beyond what Spring finds itself: the schema
 * migrations of the database parts (read as resources), the RMI client socket factory that the JMX
 * server hands to its clients (serialised into the stub), and the MBean interfaces of the cluster
 * MBeans (read reflectively by the MBean server, proxied by JMX clients).
 */
public final class PollingRuntimeHints implements RuntimeHintsRegistrar {

	static final String SOCKET_FACTORY = "dev.polling.core.jmx.TimeoutClientSocketFactory";

	static final String[] MBEAN_INTERFACES = { "dev.polling.core.PollingClusterMXBean", "dev.polling.core.IsyPollingStatusMXBean" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("dev/polling/jdbc/migration/*/*.sql");
		hints.serialization().registerType(TypeReference.of(SOCKET_FACTORY));
		for (String mbean : MBEAN_INTERFACES) {
			hints.reflection().registerType(TypeReference.of(mbean), MemberCategory.INVOKE_PUBLIC_METHODS);
			hints.proxies().registerJdkProxy(TypeReference.of(mbean));
		}
	}

}
