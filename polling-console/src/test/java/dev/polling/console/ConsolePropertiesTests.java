package dev.polling.console;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** The console's properties: known to the starter's check of polling.* keys, and a bad value stops the start naming the fix. */
@ExtendWith(OutputCaptureExtension.class)
class ConsolePropertiesTests {

	@Test
	void theConsoleKeysAreNotReportedAsUnknown(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = ConsoleApplications.start(ConsoleApplications.OpenApplication.class, "props",
				ConsoleApplications.freePort(), List.of(), "polling.console.actions-enabled=true", "polling.console.timeline-size=50",
				"polling.console.timeline-retention=2h", "polling.console.actionz=true")) {
			assertThat(context.getBean(ConsoleProperties.class).getTimelineSize()).isEqualTo(50);
			assertThat(context.getBean(ConsoleTimeline.class).retention()).isEqualTo(java.time.Duration.ofHours(2));
		}
		assertThat(output.getAll()).doesNotContain("'polling.console.actions-enabled'")
			.doesNotContain("'polling.console.timeline-size'")
			.doesNotContain("'polling.console.timeline-retention'")
			.contains("Property 'polling.console.actionz'");
	}

	@Test
	void aTimelineTooSmallStopsTheStart() {
		assertThatException().isThrownBy(() -> ConsoleApplications.start(ConsoleApplications.OpenApplication.class, "bad",
				ConsoleApplications.freePort(), List.of(), "polling.console.timeline-size=3"))
			.withStackTraceContaining("polling.console.timeline-size is 3; set it between 10 and 10000");
	}

	@Test
	void aTimelineRetentionOutOfRangeStopsTheStart() {
		assertThatException().isThrownBy(() -> ConsoleApplications.start(ConsoleApplications.OpenApplication.class, "bad",
				ConsoleApplications.freePort(), List.of(), "polling.console.timeline-retention=30d"))
			.withStackTraceContaining("polling.console.timeline-retention is PT720H; set it between 1m and 7d");
	}

}
