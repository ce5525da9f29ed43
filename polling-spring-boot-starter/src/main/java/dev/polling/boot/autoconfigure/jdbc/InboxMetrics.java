package dev.polling.boot.autoconfigure.jdbc;

import dev.polling.jdbc.inbox.InboxListener;
import dev.polling.jdbc.inbox.Receipt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Micrometer meters of the inbox, an {@link InboxListener} that Spring Boot binds to the
 * application's meter registries:
 * <ul>
 * <li>{@value #RECEIPTS}: counter of {@code Inbox.receive} calls, tags {@code source} and
 * {@code outcome} ({@code new}, {@code duplicate}). A NEW receipt whose transaction later rolls
 * back is counted too.</li>
 * <li>{@value #PURGED}: counter of entries deleted by the retention purge.</li>
 * </ul>
 */
public final class InboxMetrics implements InboxListener, MeterBinder {

	/** Counter of receipts by source and outcome. */
	public static final String RECEIPTS = "polling.inbox.receipts";

	/** Counter of purged entries. */
	public static final String PURGED = "polling.inbox.purged";

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		Counter.builder(PURGED).description("Inbox entries deleted by the retention purge").register(registry);
		this.registries.add(registry);
	}

	@Override
	public void onReceipt(String source, Receipt receipt) {
		for (MeterRegistry registry : this.registries) {
			Counter.builder(RECEIPTS)
				.description("Inbox receipts by source and outcome")
				.tag("source", source)
				.tag("outcome", outcome(receipt))
				.register(registry)
				.increment();
		}
	}

	@Override
	public void onPurge(int deleted) {
		for (MeterRegistry registry : this.registries) {
			registry.counter(PURGED).increment(deleted);
		}
	}

	private static String outcome(Receipt receipt) {
		return receipt.name().toLowerCase(Locale.ROOT);
	}

}
