package dev.polling.benchmarks.startup;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.metrics.StartupStep;

/**
 * One start of {@link StartupApplication} in this JVM, for {@link StartupBenchmark}: {@code with}
 * the starter's auto-configurations, or {@code without} them (all of them excluded, so the
 * {@code @PollingCycle} annotations are inert). Prints one line:
 * {@code startup <mode> runMs=<SpringApplication.run> uptimeMs=<JVM uptime when started> beans=<n> classes=<loaded> polling=<bean=ms,...>},
 * where {@code polling} lists the instantiation (and smart-initialization) time of the starter's beans
 * (Spring's start-up steps; a bean's time includes the beans it creates on the way).
 *
 * <p>Arguments: {@code with|without jmxPort}.
 */
public final class StartupProbe {

	private static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	private StartupProbe() {
	}

	public static void main(String[] args) throws IOException {
		boolean with = args[0].equals("with");
		int jmxPort = Integer.parseInt(args[1]);
		long began = System.nanoTime();
		SpringApplication application = new SpringApplication(StartupApplication.class);
		BufferingApplicationStartup startup = new BufferingApplicationStartup(100_000);
		application.setApplicationStartup(startup);
		application.setDefaultProperties(properties(with, jmxPort));
		ConfigurableApplicationContext context = application.run();
		long runMs = (System.nanoTime() - began) / 1_000_000L;
		long uptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
		long classes = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
		Map<String, Long> polling = new LinkedHashMap<>();
		startup.getBufferedTimeline().getEvents().forEach((event) -> {
			StartupStep step = event.getStartupStep();
			if (!step.getName().equals("spring.beans.instantiate") && !step.getName().equals("spring.beans.smart-initialize")) {
				return;
			}
			for (StartupStep.Tag tag : step.getTags()) {
				if (tag.getKey().equals("beanName") && isPolling(context, tag.getValue())) {
					polling.merge(tag.getValue(), event.getDuration().toMillis(), Long::sum);
				}
			}
		});
		int beans = context.getBeanDefinitionCount();
		context.close();
		StringBuilder line = new StringBuilder("startup ").append(with ? "with" : "without").append(" runMs=").append(runMs)
			.append(" uptimeMs=").append(uptimeMs).append(" beans=").append(beans).append(" classes=").append(classes).append(" polling=");
		polling.forEach((bean, ms) -> line.append(bean).append('=').append(ms).append(','));
		System.out.println(line);
		System.exit(0);
	}

	private static boolean isPolling(ConfigurableApplicationContext context, String beanName) {
		if (!context.getBeanFactory().containsBeanDefinition(beanName)) {
			return false;
		}
		String type = context.getBeanFactory().getBeanDefinition(beanName).getResolvableType().toString();
		return (type.startsWith("dev.polling.") && !type.startsWith("dev.polling.benchmarks.")) || beanName.startsWith("dev.polling.boot")
				|| (beanName.toLowerCase(java.util.Locale.ROOT).contains("polling") && !beanName.equals("pollers"));
	}

	private static Map<String, Object> properties(boolean with, int jmxPort) throws IOException {
		Map<String, Object> p = new LinkedHashMap<>();
		p.put("spring.main.banner-mode", "off");
		// no web server: the module has Spring MVC for ConsoleBenchmark; this harness measures a plain application
		p.put("spring.main.web-application-type", "none");
		p.put("logging.level.root", "WARN");
		p.put("spring.datasource.url", "jdbc:h2:mem:startup;DB_CLOSE_DELAY=-1");
		p.put("spring.datasource.username", "sa");
		p.put("polling.instance-id", "bench");
		p.put("polling.jmx.peer-timeout", "2s");
		p.put("polling.jmx.server.port", jmxPort);
		p.put("polling.jmx.peers.bench.host", "127.0.0.1");
		p.put("polling.jmx.peers.bench.port", jmxPort);
		// a peer whose port refuses: the start-up peer check asks it
		p.put("polling.jmx.peers.other.host", "127.0.0.1");
		p.put("polling.jmx.peers.other.port", jmxPort + 1);
		for (int i = 1; i <= 20; i++) {
			p.put("polling.clusters.C" + ((i < 10) ? "0" : "") + i + ".wait-time", "20s");
		}
		p.put("polling.jdbc.initialize-schema", "always");
		for (String part : List.of("inbox", "queue", "delivery", "jobs")) {
			p.put("polling.jdbc." + part + ".enabled", "true");
		}
		p.put("polling.jdbc.jobs.cluster", "C01");
		if (!with) {
			p.put("spring.autoconfigure.exclude", String.join(",", pollingAutoConfigurations()));
		}
		return p;
	}

	/** Every auto-configuration the starter registers. */
	private static List<String> pollingAutoConfigurations() throws IOException {
		List<String> names = new ArrayList<>();
		Enumeration<URL> files = StartupProbe.class.getClassLoader().getResources(IMPORTS);
		while (files.hasMoreElements()) {
			try (InputStream in = files.nextElement().openStream()) {
				for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
					String name = line.strip();
					if (name.startsWith("dev.polling.")) {
						names.add(name);
					}
				}
			}
		}
		return names;
	}

}
