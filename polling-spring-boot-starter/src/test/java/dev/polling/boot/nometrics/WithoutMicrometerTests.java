package dev.polling.boot.nometrics;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.jobs.JobScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is optional: an application without it (no actuator) starts with every database part
 * on. Run in a JVM whose class path lacks Micrometer's jars, as such an application's does (a
 * filtering class loader in this JVM would not show it: the starter's classes come from the
 * application class loader, which sees Micrometer). Before the fix the jobs dispatcher's bean failed
 * with {@code NoClassDefFoundError: io/micrometer/core/instrument/binder/MeterBinder}.
 */
class WithoutMicrometerTests {

	@Test
	void startsWithEveryDatabasePartWhenMicrometerIsNotOnTheClassPath() throws Exception {
		String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("micrometer"))
			.collect(Collectors.joining(File.pathSeparator));
		assertThat(classPath).doesNotContain("micrometer-core");
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
				classPath, Application.class.getName())
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
		assertThat(output).as(output).contains("started: clusters=[JOBS] jobs=true micrometer=false dataSources=1");
		assertThat(process.exitValue()).as(output).isZero();
	}

	/** The application in the child JVM. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		public static void main(String[] args) {
			SpringApplication application = new SpringApplication(Application.class);
			application.setWebApplicationType(WebApplicationType.NONE);
			java.util.Properties properties = new java.util.Properties();
			properties.put("spring.main.banner-mode", "off");
			properties.put("spring.datasource.url", "jdbc:h2:mem:nometrics;DB_CLOSE_DELAY=-1");
			properties.put("spring.datasource.type", "org.springframework.jdbc.datasource.SimpleDriverDataSource");
			properties.put("polling.clusters.JOBS.wait-time", "10s");
			properties.put("polling.jdbc.initialize-schema", "always");
			for (String part : java.util.List.of("inbox", "queue", "delivery", "jobs")) {
				properties.put("polling.jdbc." + part + ".enabled", "true");
			}
			properties.put("polling.jdbc.jobs.cluster", "JOBS");
			application.setDefaultProperties(properties);
			try (ConfigurableApplicationContext context = application.run()) {
				boolean micrometer = org.springframework.util.ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", null);
				System.out.println("started: clusters=" + context.getBean(PollingManager.class).clusterIds() + " jobs="
						+ (context.getBeanProvider(JobScheduler.class).getIfAvailable() != null) + " micrometer=" + micrometer + " dataSources=" + context.getBeanNamesForType(javax.sql.DataSource.class).length);
			}
			System.exit(0);
		}

	}

}
