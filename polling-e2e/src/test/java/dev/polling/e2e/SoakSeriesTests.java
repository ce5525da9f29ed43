package dev.polling.e2e;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SoakSeriesTests {

	@Test
	void aSeriesWithinFivePercentOfTheMiddleOfItsRangeIsFlat() {
		SoakSeries series = new SoakSeries();
		series.add(0, "", Map.of("heap", 50.0)); // before the window: not counted
		series.add(1, "", Map.of("heap", 95.0));
		series.add(2, "", Map.of("heap", 105.0));
		series.add(3, "", Map.of("heap", 100.0));

		SoakSeries.Summary summary = series.summaries(1, 3).get(0);

		assertThat(summary.min()).isEqualTo(95.0);
		assertThat(summary.max()).isEqualTo(105.0);
		assertThat(summary.spreadPercent()).isEqualTo(5.0);
		assertThat(summary.flat()).isTrue();
		assertThat(summary.missedBy()).isZero();
	}

	@Test
	void aSeriesBeyondFivePercentIsNotFlatAndSaysByHowMuch() {
		SoakSeries series = new SoakSeries();
		series.add(10, "", Map.of("threads", 60.0));
		series.add(11, "", Map.of("threads", 80.0));

		SoakSeries.Summary summary = series.summaries(10, 11).get(0);

		assertThat(summary.spreadPercent()).isCloseTo(100.0 * 20 / 140, org.assertj.core.data.Offset.offset(1e-9));
		assertThat(summary.flat()).isFalse();
		assertThat(summary.missedBy()).isCloseTo(100.0 * 20 / 140 - 5, org.assertj.core.data.Offset.offset(1e-9));
		// from 60 to 80 in one minute: +20 per minute on a mean of 70, +285.7 % per 10 minutes
		assertThat(summary.slopePercent()).isCloseTo(100.0 * 10 * 20 / 70, org.assertj.core.data.Offset.offset(1e-9));
		assertThat(SoakSeries.summaryTable(List.of(summary))).last()
			.isEqualTo("| threads | 60 | 80 | ±14.3 % | +285.7 % | no, by 9.3 points |");
	}

	@Test
	void zeroThroughoutIsFlatAndAMinuteWithoutAValueIsNot() {
		SoakSeries series = new SoakSeries();
		Map<String, Double> first = new LinkedHashMap<>();
		first.put("queue FAILED", 0.0);
		first.put("i1 fd", 200.0);
		series.add(1, "", first);
		series.add(2, "instance-1 restarted", Map.of("queue FAILED", 0.0));

		List<SoakSeries.Summary> summaries = series.summaries(1, 2);

		assertThat(summaries.get(0).flat()).isTrue();
		assertThat(summaries.get(1).name()).isEqualTo("i1 fd");
		assertThat(summaries.get(1).missing()).isEqualTo(1);
		assertThat(summaries.get(1).flat()).isFalse();
		assertThat(series.table(Map.of("i1 fd", "fd"))).containsExactly("| min | queue FAILED | fd | note |", "|---:|---:|---:|---|",
				"| 1 | 0 | 200 |  |", "| 2 | 0 | - | instance-1 restarted |");
	}

	@Test
	void valuesThatScatterWithoutGrowingHaveNoTrend() {
		SoakSeries series = new SoakSeries();
		// mirror-symmetric in time: each value has its twin as far from the middle on the other side
		double[] values = { 100, 120, 100, 120, 100, 120, 120, 100, 120, 100, 120, 100 };
		for (int minute = 0; minute < values.length; minute++) {
			series.add(minute, "", Map.of("fd", values[minute]));
		}

		SoakSeries.Summary summary = series.summaries(0, values.length - 1).get(0);

		assertThat(summary.flat()).isFalse();
		assertThat(summary.slopePercent()).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
	}

	@Test
	void theWindowBeginsAtMinuteTenOrAThirdIntoAShortRun() {
		assertThat(SoakSeries.windowStart(60)).isEqualTo(10);
		assertThat(SoakSeries.windowStart(20)).isEqualTo(10);
		assertThat(SoakSeries.windowStart(3)).isEqualTo(1);
		assertThat(SoakSeries.windowStart(12)).isEqualTo(4);
	}

	@Test
	void argumentsHaveDefaultsAndABadOneIsNamed() {
		assertThat(SoakDriver.Settings.parse(new String[0])).isEqualTo(new SoakDriver.Settings(60, 10, 2.0));
		// sent for one minute beyond the last sample: 4 minutes at 0.5 per second
		assertThat(SoakDriver.Settings.parse(new String[] { "3", "1", "0.5" }).mails()).isEqualTo(120);
		assertThatIllegalArgumentException().isThrownBy(() -> SoakDriver.Settings.parse(new String[] { "sixty" }))
			.withMessageStartingWith("minutes=sixty: give a whole number from 1 to 1440");
		assertThatIllegalArgumentException().isThrownBy(() -> SoakDriver.Settings.parse(new String[] { "60", "0" }))
			.withMessageStartingWith("restart-every-minutes=0: give a whole number from 1 to 1440");
		assertThat(SoakDriver.Settings.parse(new String[] { "20", "10", "2", "diagnose" })).isEqualTo(new SoakDriver.Settings(20, 10, 2.0, true));
		assertThatIllegalArgumentException().isThrownBy(() -> SoakDriver.Settings.parse(new String[] { "20", "10", "2", "histogram" }))
			.withMessageContaining("fourth argument=histogram");
		assertThatIllegalArgumentException().isThrownBy(() -> SoakDriver.Settings.parse(new String[] { "60", "10", "fast" }))
			.withMessageStartingWith("mails-per-second=fast: give a number from 0.1 to 50");
	}

}
