package dev.polling.compat.mixed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.core.Decision;
import dev.polling.core.PollingManager;

/**
 * One instance with this starter, run in its own JVM by {@link MixedClusterTest} with the isy-polling
 * JMX contract and its peer and cluster as arguments. Ticks like the isy-polling peer: asks for the cluster
 * ({@code runIfGranted}) every {@code --tick-millis} and prints {@code granted <reason>} or
 * {@code refused <reason>}. Standard input: {@code stop} stops ticking (answered by {@code STOPPED}; no
 * tick runs after it), {@code start} resumes ({@code STARTED}); end of input exits.
 */
@SpringBootApplication
public class OurPollingApplication {

	static final String CLUSTER = "MAILABRUF_CLUSTER";

	public static void main(String[] args) throws IOException {
		ConfigurableApplicationContext context = SpringApplication.run(OurPollingApplication.class, args);
		PollingManager manager = context.getBean(PollingManager.class);
		long tick = context.getEnvironment().getRequiredProperty("tick-millis", Long.class);
		Object lock = new Object();
		AtomicBoolean ticking = new AtomicBoolean(true);
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		timer.scheduleWithFixedDelay(() -> {
			synchronized (lock) {
				if (!ticking.get()) {
					return;
				}
				try {
					Decision decision = manager.runIfGranted(CLUSTER, () -> {
					});
					System.out.println((decision.isGranted() ? "granted " : "refused ") + decision.reason());
				}
				catch (RuntimeException ex) {
					System.out.println("error " + ex);
				}
				System.out.flush();
			}
		}, 0, tick, TimeUnit.MILLISECONDS);
		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			synchronized (lock) {
				if (line.trim().equals("stop")) {
					ticking.set(false);
					System.out.println("STOPPED");
				}
				else if (line.trim().equals("start")) {
					ticking.set(true);
					System.out.println("STARTED");
				}
				System.out.flush();
			}
		}
		timer.shutdownNow();
		context.close();
		System.exit(0);
	}

}
