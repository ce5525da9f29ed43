package dev.polling.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * What the demo found at its end, and its verdict: every sent mail became exactly one order.
 *
 * @param sent mails sent
 * @param processed sent mails that have an order
 * @param lost sent mails without an order
 * @param duplicateRows Message-IDs with more than one order
 * @param duplicateFetches mails fetched again after they had been processed (inbox DUPLICATE)
 * @param ordersByInstance orders per instance that processed them
 * @param leftOnServer mails still on the mail server
 * @param takeovers one per cluster the killed instance held
 * @param doubleHolderSamples status samples in which two instances said they hold the same cluster
 * @param failure why the demo could not run to its end, or null
 */
public record DemoReport(int sent, int processed, int lost, int duplicateRows, int duplicateFetches,
		Map<String, Integer> ordersByInstance, int leftOnServer, List<Takeover> takeovers, int doubleHolderSamples,
		@Nullable String failure) {

	/**
	 * Compares what was sent with the orders found.
	 * @param sentKeys the inbox keys of the sent mails
	 * @param orders the orders found: inbox key and the instance that processed it, one entry per row
	 * @param duplicateFetches inbox DUPLICATEs recorded
	 * @param leftOnServer mails still on the server
	 * @param takeovers the takeovers measured
	 * @param doubleHolderSamples samples with two holders of one cluster
	 * @param failure why the demo stopped early, or null
	 * @return the report
	 */
	public static DemoReport of(Collection<String> sentKeys, List<Order> orders, int duplicateFetches, int leftOnServer,
			List<Takeover> takeovers, int doubleHolderSamples, @Nullable String failure) {
		Set<String> sent = new LinkedHashSet<>(sentKeys);
		Map<String, Integer> rowsPerKey = new HashMap<>();
		Map<String, Integer> byInstance = new TreeMap<>();
		for (Order order : orders) {
			rowsPerKey.merge(order.messageKey(), 1, Integer::sum);
			byInstance.merge(order.processedBy(), 1, Integer::sum);
		}
		int processed = 0;
		for (String key : sent) {
			if (rowsPerKey.containsKey(key)) {
				processed++;
			}
		}
		int duplicateRows = (int) rowsPerKey.values().stream().filter((rows) -> rows > 1).count();
		return new DemoReport(sent.size(), processed, sent.size() - processed, duplicateRows, duplicateFetches, byInstance,
				leftOnServer, List.copyOf(takeovers), doubleHolderSamples, failure);
	}

	/**
	 * Whether the demo proved its point: it ran to its end, every sent mail has exactly one order,
	 * and every cluster of the killed instance was taken over.
	 * @return the verdict
	 */
	public boolean ok() {
		return this.failure == null && this.sent > 0 && this.processed == this.sent && this.lost == 0
				&& this.duplicateRows == 0 && this.takeovers.stream().allMatch((t) -> t.after() != null);
	}

	/**
	 * The summary, one line each, without the verdict.
	 * @return the lines
	 */
	public List<String> summary() {
		List<String> lines = new ArrayList<>();
		lines.add(String.format(Locale.ROOT, "  mails sent                                %5d", this.sent));
		StringBuilder per = new StringBuilder();
		this.ordersByInstance.forEach((instance, count) -> per.append(per.isEmpty() ? "" : ", ").append(instance)
			.append(": ").append(count));
		lines.add(String.format(Locale.ROOT, "  processed (sent mails with an order)      %5d   (orders by instance: %s)",
				this.processed, per.isEmpty() ? "none" : per));
		lines.add(String.format(Locale.ROOT,
				"  duplicates fetched (inbox DUPLICATE)      %5d   (fetched again after a crash; no second order)",
				this.duplicateFetches));
		lines.add(String.format(Locale.ROOT, "  duplicate business rows                   %5d", this.duplicateRows));
		lines.add(String.format(Locale.ROOT, "  lost mails                                %5d", this.lost));
		lines.add(String.format(Locale.ROOT, "  mails left on the mail server             %5d", this.leftOnServer));
		lines.add(String.format(Locale.ROOT, "  samples with two holders of one cluster   %5d", this.doubleHolderSamples));
		if (this.takeovers.isEmpty()) {
			lines.add("  takeovers                                 none measured");
		}
		for (Takeover takeover : this.takeovers) {
			lines.add("  takeover " + takeover.describe());
		}
		if (this.failure != null) {
			lines.add("  failure: " + this.failure);
		}
		return lines;
	}

	/**
	 * The demo's last line: {@code demo: OK sent=N processed=N lost=0 duplicate-rows=0} or
	 * {@code demo: FAILED ...}.
	 * @return the line
	 */
	public String lastLine() {
		String counts = "sent=" + this.sent + " processed=" + this.processed + " lost=" + this.lost + " duplicate-rows="
				+ this.duplicateRows;
		if (ok()) {
			return "demo: OK " + counts;
		}
		List<String> reasons = new ArrayList<>();
		if (this.failure != null) {
			reasons.add(this.failure);
		}
		for (Takeover takeover : this.takeovers) {
			if (takeover.after() == null) {
				reasons.add(takeover.cluster() + " not taken over");
			}
		}
		return "demo: FAILED " + counts + (reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")");
	}

	/**
	 * One order row.
	 * @param messageKey the inbox key of its mail
	 * @param processedBy the instance that created it
	 */
	public record Order(String messageKey, String processedBy) {
	}

	/**
	 * How a cluster of the killed instance was taken over.
	 * @param cluster the cluster
	 * @param from the killed instance
	 * @param by the instance that took it over, or null if none did
	 * @param after from the SIGKILL to the first status in which a survivor held it, or null
	 */
	public record Takeover(String cluster, String from, @Nullable String by, @Nullable Duration after) {

		String describe() {
			if (this.after == null || this.by == null) {
				return this.cluster + ": held by " + this.from + " when killed, NOT taken over";
			}
			return String.format(Locale.ROOT, "%s: held by %s when killed, taken over by %s after %.1f s", this.cluster,
					this.from, this.by, this.after.toMillis() / 1000.0);
		}

	}

}
