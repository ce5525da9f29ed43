package dev.polling.boot.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import dev.polling.core.IsyPollingStatusMXBean;
import dev.polling.core.PollingClusterMXBean;
import dev.polling.core.jmx.TimeoutClientSocketFactory;

class PollingRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	PollingRuntimeHintsTests() {
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(this.hints, getClass().getClassLoader()));
	}

	@Test
	void isRegisteredInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories").load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(PollingRuntimeHints.class);
	}

	@Test
	void coversTheSchemaMigrationsOfEveryDialect() {
		for (Dialect dialect : Dialect.values()) {
			for (Schema.Migration migration : Schema.migrations()) {
				assertThat(RuntimeHintsPredicates.resource().forResource(migration.resource(dialect))).accepts(this.hints);
			}
		}
	}

	@Test
	void coversTheSerialisedSocketFactoryAndTheMBeanInterfaces() {
		assertThat(RuntimeHintsPredicates.serialization().onType(TimeoutClientSocketFactory.class)).accepts(this.hints);
		for (Class<?> mbean : new Class<?>[] { PollingClusterMXBean.class, IsyPollingStatusMXBean.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(mbean).withMemberCategory(
					org.springframework.aot.hint.MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(this.hints);
			assertThat(RuntimeHintsPredicates.proxies().forInterfaces(TypeReference.of(mbean))).accepts(this.hints);
		}
		// the names in the registrar are those of the classes
		assertThat(PollingRuntimeHints.SOCKET_FACTORY).isEqualTo(TimeoutClientSocketFactory.class.getName());
		assertThat(PollingRuntimeHints.MBEAN_INTERFACES).containsExactly(PollingClusterMXBean.class.getName(),
				IsyPollingStatusMXBean.class.getName());
	}

}
