package dev.polling.boot.autoconfigure;


import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.polling.core.PollingManager;
import dev.polling.core.JmxContract;
import dev.polling.core.JmxNames;
import dev.polling.core.jmx.PollingJmxServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.TestSocketUtils.findAvailableTcpPort;

/** {@code polling.jmx.contract}: the MBean row of the migration guide, with the starter's own JMX server. */
class JmxContractPropertyTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PollingAutoConfiguration.class))
		.withPropertyValues("polling.instance-id=contract", "polling.jmx.server.port=" + findAvailableTcpPort(),
				"polling.clusters.MAILABRUF_CLUSTER.name=XY-Nachrichten", "polling.clusters.MAILABRUF_CLUSTER.wait-time=600s");

	@Test
	void usesTheNativeContractByDefault() {
		this.runner.run((context) -> {
			PollingJmxServer server = context.getBean(PollingJmxServerLifecycle.class).server();
			assertThat(context.getBean(PollingManager.class).settings().jmxContract()).isEqualTo(JmxContract.NATIVE);
			assertThat(server.mbeanServer().isRegistered(JmxNames.clusterName("dev.polling", "MAILABRUF_CLUSTER"))).isTrue();
			assertThat(server.settings().portableStubs()).isFalse();
		});
	}

	@Test
	void registersUnderIsyPollingsNameInItsDefaultDomainWithPlainJdkStubs() {
		this.runner.withPropertyValues("polling.jmx.contract=isy-polling").run((context) -> {
			PollingJmxServer server = context.getBean(PollingJmxServerLifecycle.class).server();
			assertThat(server.mbeanServer()
				.isRegistered(new ObjectName("de.bund.bva.isyfact.polling:type=PollingStatus,name=\"Polling-Aktivitaet-XY-Nachrichten\"")))
				.isTrue();
			assertThat(server.mbeanServer().getAttribute(
					new ObjectName("de.bund.bva.isyfact.polling:type=PollingStatus,name=\"Polling-Aktivitaet-XY-Nachrichten\""),
					"ZeitraumLetztePollingAktivitaet"))
				.isEqualTo(Long.MAX_VALUE);
			assertThat(server.settings().portableStubs()).isTrue();
		});
	}

	@Test
	void takesTheConfiguredDomainWithTheIsyPollingContract() {
		this.runner.withPropertyValues("polling.jmx.contract=isy-polling", "polling.jmx.domain=de.bund.bva.domaene.anwendung")
			.run((context) -> assertThat(context.getBean(PollingJmxServerLifecycle.class).server()
				.mbeanServer()
				.isRegistered(new ObjectName(
						"de.bund.bva.domaene.anwendung:type=PollingStatus,name=\"Polling-Aktivitaet-XY-Nachrichten\"")))
				.isTrue());
	}

	@Test
	void failsTheStartupOnAnUnknownContract() {
		this.runner.withPropertyValues("polling.jmx.contract=isy").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("polling.jmx.contract");
		});
	}

}
