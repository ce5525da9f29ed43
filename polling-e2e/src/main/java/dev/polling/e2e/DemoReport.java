package dev.polling.e2e;

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
 * What the demo found at its end, and its verdict: every sent mail became exactly one order, with
 * exactly one confirmation mail at the mail server and exactly one follow-up check.
 *
 * @param sent mails sent
 * @param processed sent mails that have an order
 * @param lost sent mails without an order
 * @param duplicateRows Message-IDs with more than one order
 * @param duplicateFetches mails fetched again after they had been processed (inbox DUPLICATE)
 * @param ordersByInstance orders per instance that processed them
 * @param leftOnServer mails still on the mail server
 * @param confirmations the confirmation mails found at the mail server
 * @param followUps the follow-up checks found in the database
 * @param takeovers one per cluster the killed instance held
 * @param doubleHolderSamples status samples in which two instances said they hold the same cluster
 * @param failure why the demo could not run to its end, or null
 */
public record DemoReport(int sent, int processed, int lost, int duplicateRows, int duplicateFetches,
		Map<String, Integer> ordersByInstance, int leftOnServer, Confirmations confirmations, FollowUps followUps,
		List<Takeover> takeovers, int doubleHolderSamples, @Nullable String failure) {

	/**
	 * Compares what was sent with the orders found.
	 * @param sentKeys the inbox keys of the sent mails
	 * @param orders the orders found: inbox key and the instance that processed it, one entry per row
	 * @param duplicateFetches inbox DUPLICATEs recorded
	 * @param leftOnServer mails still on the server
	 * @param confirmationKeys per confirmation mail at the server the order key it confirms, or null if
	 * the server could not be asked
	 * @param inDoubtResolutions what the demo did as operator with in-doubt confirmations
	 * @param followUps the follow-up checks, one entry per row
	 * @param takeovers the takeovers measured
	 * @param doubleHolderSamples samples with two holders of one cluster
	 * @param failure why the demo stopped early, or null
	 * @return the report
	 */
	public static DemoReport of(Collection<String> sentKeys, List<Order> orders, int duplicateFetches, int leftOnServer,
			@Nullable List<String> confirmationKeys, List<String> inDoubtResolutions, List<FollowUp> followUps,
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
				leftOnServer, Confirmations.of(rowsPerKey.keySet(), confirmationKeys, inDoubtResolutions),
				FollowUps.of(rowsPerKey.keySet(), followUps), List.copyOf(takeovers), doubleHolderSamples, failure);
	}

	/**
	 * Whether the demo proved its point: it ran to its end, every sent mail has exactly one order,
	 * and every cluster of the killed instance was taken over.
	 * @return the verdict
	 */
	public boolean ok() {
		return this.failure == null && this.sent > 0 && this.processed == this.sent && this.lost == 0
				&& this.duplicateRows == 0 && this.takeovers.stream().allMatch((t) -> t.after() != null)
				&& this.confirmations.ok(this.processed) && this.followUps.ok(this.processed);
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
		lines.addAll(this.confirmations.summary());
		lines.addAll(this.followUps.summary());
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
				+ this.duplicateRows + " confirmations=" + this.confirmations.confirmed() + " duplicate-confirmations="
				+ this.confirmations.duplicates() + " follow-ups=" + this.followUps.checked() + " duplicate-follow-ups="
				+ this.followUps.duplicates();
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
		if (!this.confirmations.ok(this.processed)) {
			reasons.add(this.confirmations.counted() ? "confirmations do not match the orders"
					: "confirmations not counted (mail server not reachable)");
		}
		if (!this.followUps.ok(this.processed)) {
			reasons.add("follow-up checks do not match the orders");
		}
		return "demo: FAILED " + counts + (reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")");
	}

	/**
	 * The confirmation mails at the mail server.
	 * @param counted whether the mail server could be asked
	 * @param received confirmation mails of the demo's orders
	 * @param confirmed orders with at least one confirmation
	 * @param duplicates orders with more than one confirmation
	 * @param missing orders without a confirmation
	 * @param inDoubtResolutions what the demo did as operator with in-doubt confirmations
	 */
	public record Confirmations(boolean counted, int received, int confirmed, int duplicates, int missing,
			List<String> inDoubtResolutions) {

		static Confirmations of(Set<String> orderKeys, @Nullable List<String> confirmationKeys,
				List<String> inDoubtResolutions) {
			if (confirmationKeys == null) {
				return new Confirmations(false, 0, 0, 0, orderKeys.size(), List.copyOf(inDoubtResolutions));
			}
			Map<String, Integer> perOrder = new HashMap<>();
			for (String key : confirmationKeys) {
				if (orderKeys.contains(key)) {
					perOrder.merge(key, 1, Integer::sum);
				}
			}
			int received = perOrder.values().stream().mapToInt(Integer::intValue).sum();
			int duplicates = (int) perOrder.values().stream().filter((n) -> n > 1).count();
			return new Confirmations(true, received, perOrder.size(), duplicates, orderKeys.size() - perOrder.size(),
					List.copyOf(inDoubtResolutions));
		}

		boolean ok(int processed) {
			return this.counted && this.confirmed == processed && this.duplicates == 0 && this.missing == 0;
		}

		List<String> summary() {
			List<String> lines = new ArrayList<>();
			if (!this.counted) {
				lines.add("  confirmation mails                        not counted (mail server not reachable)");
				return lines;
			}
			lines.add(String.format(Locale.ROOT,
					"  confirmation mails at the mail server     %5d   (one per order through the delivery guard; %d in doubt, resolved by the demo as operator)",
					this.received, this.inDoubtResolutions.size()));
			lines.add(String.format(Locale.ROOT, "  orders confirmed twice                    %5d", this.duplicates));
			lines.add(String.format(Locale.ROOT, "  orders without confirmation               %5d", this.missing));
			this.inDoubtResolutions.forEach((line) -> lines.add("    " + line));
			return lines;
		}

	}

	/**
	 * The follow-up checks (scheduled jobs) found in the database.
	 * @param executed check rows of the demo's orders
	 * @param checked orders with at least one check
	 * @param duplicates orders checked more than once
	 * @param missing orders without a check
	 * @param minDelay the shortest time from an order to its check, or null
	 * @param medianDelay the median, or null
	 * @param maxDelay the longest, or null
	 */
	public record FollowUps(int executed, int checked, int duplicates, int missing, @Nullable Duration minDelay,
			@Nullable Duration medianDelay, @Nullable Duration maxDelay) {

		static FollowUps of(Set<String> orderKeys, List<FollowUp> rows) {
			Map<String, Integer> perOrder = new HashMap<>();
			List<Duration> delays = new ArrayList<>();
			for (FollowUp row : rows) {
				if (orderKeys.contains(row.messageKey())) {
					perOrder.merge(row.messageKey(), 1, Integer::sum);
					if (row.afterOrder() != null) {
						delays.add(row.afterOrder());
					}
				}
			}
			delays.sort(null);
			int executed = perOrder.values().stream().mapToInt(Integer::intValue).sum();
			int duplicates = (int) perOrder.values().stream().filter((n) -> n > 1).count();
			return new FollowUps(executed, perOrder.size(), duplicates, orderKeys.size() - perOrder.size(),
					delays.isEmpty() ? null : delays.get(0), delays.isEmpty() ? null : delays.get(delays.size() / 2),
					delays.isEmpty() ? null : delays.get(delays.size() - 1));
		}

		boolean ok(int processed) {
			return this.checked == processed && this.duplicates == 0 && this.missing == 0;
		}

		List<String> summary() {
			List<String> lines = new ArrayList<>();
			String delays = (this.minDelay == null || this.medianDelay == null || this.maxDelay == null) ? "none"
					: String.format(Locale.ROOT, "%.1f / %.1f / %.1f s", this.minDelay.toMillis() / 1000.0,
							this.medianDelay.toMillis() / 1000.0, this.maxDelay.toMillis() / 1000.0);
			lines.add(String.format(Locale.ROOT,
					"  follow-up checks executed                 %5d   (scheduled jobs; order to check min / median / max: %s)",
					this.executed, delays));
			lines.add(String.format(Locale.ROOT, "  orders checked twice                      %5d", this.duplicates));
			lines.add(String.format(Locale.ROOT, "  orders without follow-up check            %5d", this.missing));
			return lines;
		}

	}

	/**
	 * One follow-up check row.
	 * @param messageKey the inbox key of its order's mail
	 * @param afterOrder from the order to the check, or null if the order is missing
	 */
	public record FollowUp(String messageKey, @Nullable Duration afterOrder) {
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
