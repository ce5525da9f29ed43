package dev.polling.sample.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.polling.sample.demo.DemoReport.Order;
import dev.polling.sample.demo.DemoReport.Takeover;

import static org.assertj.core.api.Assertions.assertThat;

class DemoReportTests {

	private static final List<Takeover> TAKEN_OVER = List.of(new Takeover("MAILBOX_1", "instance-2", "instance-3",
			Duration.ofMillis(1200)));

	@Test
	void everyMailWithExactlyOneOrderIsOk() {
		DemoReport report = DemoReport.of(List.of("a", "b", "c"),
				List.of(new Order("a", "instance-1"), new Order("b", "instance-2"), new Order("c", "instance-2")), 1, 0,
				TAKEN_OVER, 0, null);

		assertThat(report.ok()).isTrue();
		assertThat(report.lastLine()).isEqualTo("demo: OK sent=3 processed=3 lost=0 duplicate-rows=0");
		assertThat(report.ordersByInstance()).containsExactly(Map.entry("instance-1", 1),
				Map.entry("instance-2", 2));
		assertThat(report.summary()).anyMatch((line) -> line.contains("duplicates fetched") && line.contains(" 1 "))
			.anyMatch((line) -> line.contains("taken over by instance-3 after 1.2 s"));
	}

	@Test
	void aMailWithoutOrderIsLost() {
		DemoReport report = DemoReport.of(List.of("a", "b"), List.of(new Order("a", "instance-1")), 0, 1, TAKEN_OVER, 0,
				null);

		assertThat(report.ok()).isFalse();
		assertThat(report.lost()).isEqualTo(1);
		assertThat(report.lastLine()).isEqualTo("demo: FAILED sent=2 processed=1 lost=1 duplicate-rows=0");
	}

	@Test
	void twoOrdersForOneMailAreADuplicateRow() {
		DemoReport report = DemoReport.of(List.of("a", "b"),
				List.of(new Order("a", "instance-1"), new Order("b", "instance-1"), new Order("b", "instance-2")), 0, 0,
				TAKEN_OVER, 0, null);

		assertThat(report.ok()).isFalse();
		assertThat(report.processed()).isEqualTo(2);
		assertThat(report.lastLine()).isEqualTo("demo: FAILED sent=2 processed=2 lost=0 duplicate-rows=1");
	}

	@Test
	void aClusterNotTakenOverOrAFailureFailsTheDemo() {
		List<Order> orders = List.of(new Order("a", "instance-1"));
		DemoReport notTakenOver = DemoReport.of(List.of("a"), orders, 0, 0,
				List.of(new Takeover("MAILBOX_1", "instance-1", null, null)), 0, null);
		DemoReport failed = DemoReport.of(List.of("a"), orders, 0, 0, TAKEN_OVER, 0, "instance-2 ended unexpectedly");

		assertThat(notTakenOver.lastLine())
			.isEqualTo("demo: FAILED sent=1 processed=1 lost=0 duplicate-rows=0 (MAILBOX_1 not taken over)");
		assertThat(failed.lastLine())
			.isEqualTo("demo: FAILED sent=1 processed=1 lost=0 duplicate-rows=0 (instance-2 ended unexpectedly)");
	}

	@Test
	void nothingSentIsNotOk() {
		assertThat(DemoReport.of(List.of(), List.of(), 0, 0, List.of(), 0, "the mail server did not start").ok())
			.isFalse();
	}

}
