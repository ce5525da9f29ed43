package dev.polling.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.polling.e2e.DemoReport.FollowUp;
import dev.polling.e2e.DemoReport.Order;
import dev.polling.e2e.DemoReport.Takeover;

import static org.assertj.core.api.Assertions.assertThat;

class DemoReportTests {

	private static final String CONFIRMED = " confirmations=%d duplicate-confirmations=0 follow-ups=%d duplicate-follow-ups=0";

	private static final List<Takeover> TAKEN_OVER = List.of(new Takeover("MAILBOX_1", "instance-2", "instance-3",
			Duration.ofMillis(1200)));

	@Test
	void everyMailWithExactlyOneOrderIsOk() {
		DemoReport report = DemoReport.of(List.of("a", "b", "c"),
				List.of(new Order("a", "instance-1"), new Order("b", "instance-2"), new Order("c", "instance-2")), 1, 0,
				List.of("a", "b", "c"), List.of(), followUps("a", "b", "c"), TAKEN_OVER, 0, null);

		assertThat(report.ok()).isTrue();
		assertThat(report.lastLine())
			.isEqualTo("demo: OK sent=3 processed=3 lost=0 duplicate-rows=0" + CONFIRMED.formatted(3, 3));
		assertThat(report.ordersByInstance()).containsExactly(Map.entry("instance-1", 1),
				Map.entry("instance-2", 2));
		assertThat(report.summary()).anyMatch((line) -> line.contains("duplicates fetched") && line.contains(" 1 "))
			.anyMatch((line) -> line.contains("taken over by instance-3 after 1.2 s"));
	}

	@Test
	void aMailWithoutOrderIsLost() {
		DemoReport report = DemoReport.of(List.of("a", "b"), List.of(new Order("a", "instance-1")), 0, 1, List.of("a"),
				List.of(), followUps("a"), TAKEN_OVER, 0, null);

		assertThat(report.ok()).isFalse();
		assertThat(report.lost()).isEqualTo(1);
		assertThat(report.lastLine())
			.isEqualTo("demo: FAILED sent=2 processed=1 lost=1 duplicate-rows=0" + CONFIRMED.formatted(1, 1));
	}

	@Test
	void twoOrdersForOneMailAreADuplicateRow() {
		DemoReport report = DemoReport.of(List.of("a", "b"),
				List.of(new Order("a", "instance-1"), new Order("b", "instance-1"), new Order("b", "instance-2")), 0, 0,
				List.of("a", "b"), List.of(), followUps("a", "b"), TAKEN_OVER, 0, null);

		assertThat(report.ok()).isFalse();
		assertThat(report.processed()).isEqualTo(2);
		assertThat(report.lastLine())
			.isEqualTo("demo: FAILED sent=2 processed=2 lost=0 duplicate-rows=1" + CONFIRMED.formatted(2, 2));
	}

	@Test
	void aClusterNotTakenOverOrAFailureFailsTheDemo() {
		List<Order> orders = List.of(new Order("a", "instance-1"));
		DemoReport notTakenOver = DemoReport.of(List.of("a"), orders, 0, 0, List.of("a"), List.of(), followUps("a"),
				List.of(new Takeover("MAILBOX_1", "instance-1", null, null)), 0, null);
		DemoReport failed = DemoReport.of(List.of("a"), orders, 0, 0, List.of("a"), List.of(), followUps("a"), TAKEN_OVER, 0,
				"instance-2 ended unexpectedly");

		assertThat(notTakenOver.lastLine()).isEqualTo(
				"demo: FAILED sent=1 processed=1 lost=0 duplicate-rows=0" + CONFIRMED.formatted(1, 1) + " (MAILBOX_1 not taken over)");
		assertThat(failed.lastLine()).isEqualTo("demo: FAILED sent=1 processed=1 lost=0 duplicate-rows=0"
				+ CONFIRMED.formatted(1, 1) + " (instance-2 ended unexpectedly)");
	}

	@Test
	void nothingSentIsNotOk() {
		assertThat(DemoReport.of(List.of(), List.of(), 0, 0, null, List.of(), List.of(), List.of(), 0,
				"the mail server did not start").ok())
			.isFalse();
	}

	@Test
	void aConfirmationSentTwiceOrMissingFailsTheDemo() {
		List<Order> orders = List.of(new Order("a", "instance-1"), new Order("b", "instance-2"));
		DemoReport twice = DemoReport.of(List.of("a", "b"), orders, 0, 0, List.of("a", "b", "b"), List.of(),
				followUps("a", "b"), TAKEN_OVER, 0, null);
		DemoReport missing = DemoReport.of(List.of("a", "b"), orders, 0, 0, List.of("a", "unrelated"), List.of(),
				followUps("a", "b"), TAKEN_OVER, 0, null);
		DemoReport notCounted = DemoReport.of(List.of("a", "b"), orders, 0, 0, null, List.of(), followUps("a", "b"),
				TAKEN_OVER, 0, null);

		assertThat(twice.ok()).isFalse();
		assertThat(twice.confirmations().duplicates()).isEqualTo(1);
		assertThat(twice.lastLine()).startsWith("demo: FAILED").contains("duplicate-confirmations=1")
			.contains("confirmations do not match the orders");
		assertThat(missing.ok()).isFalse();
		assertThat(missing.confirmations().missing()).isEqualTo(1);
		assertThat(missing.lastLine()).contains(" confirmations=1 ");
		assertThat(notCounted.ok()).isFalse();
		assertThat(notCounted.lastLine()).contains("mail server not reachable");
	}

	@Test
	void aFollowUpRunTwiceOrMissingFailsTheDemo() {
		List<Order> orders = List.of(new Order("a", "instance-1"), new Order("b", "instance-2"));
		DemoReport twice = DemoReport.of(List.of("a", "b"), orders, 0, 0, List.of("a", "b"), List.of(),
				followUps("a", "b", "a"), TAKEN_OVER, 0, null);
		DemoReport missing = DemoReport.of(List.of("a", "b"), orders, 0, 0, List.of("a", "b"), List.of(), followUps("b"),
				TAKEN_OVER, 0, null);

		assertThat(twice.ok()).isFalse();
		assertThat(twice.lastLine()).contains("follow-ups=2 duplicate-follow-ups=1");
		assertThat(missing.ok()).isFalse();
		assertThat(missing.followUps().missing()).isEqualTo(1);
		assertThat(missing.summary()).anyMatch((line) -> line.contains("orders without follow-up check") && line.endsWith(" 1"));
	}

	@Test
	void theSummaryShowsTheFollowUpDelaysAndTheOperatorsResolutions() {
		DemoReport report = DemoReport.of(List.of("a", "b", "c"),
				List.of(new Order("a", "instance-1"), new Order("b", "instance-2"), new Order("c", "instance-2")), 0, 0,
				List.of("a", "b", "c"), List.of("in doubt: confirmation confirmation:b (delivery 2) found at the mail server"),
				List.of(new FollowUp("a", Duration.ofMillis(30_400)), new FollowUp("b", Duration.ofMillis(31_000)),
						new FollowUp("c", Duration.ofMillis(30_100))),
				TAKEN_OVER, 0, null);

		assertThat(report.ok()).isTrue();
		assertThat(report.summary()).anyMatch((line) -> line.contains("min / median / max: 30.1 / 30.4 / 31.0 s"))
			.anyMatch((line) -> line.contains("1 in doubt, resolved by the demo as operator"))
			.anyMatch((line) -> line.contains("confirmation:b (delivery 2) found"));
	}

	private static List<FollowUp> followUps(String... keys) {
		return java.util.Arrays.stream(keys).map((key) -> new FollowUp(key, Duration.ofSeconds(31))).toList();
	}

}
