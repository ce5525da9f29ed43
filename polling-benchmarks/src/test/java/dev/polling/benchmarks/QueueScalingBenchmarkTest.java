package dev.polling.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.polling.benchmarks.QueueScalingBenchmark.Side;
import dev.polling.benchmarks.QueueScalingBenchmark.Tally;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of {@link QueueScalingBenchmark}: the exactly-once tally, the sides' names, the median. */
class QueueScalingBenchmarkTest {

	@Test
	void tallySumsTheInstancesAndFindsMissingAndRepeatedExecutions() {
		Tally once = Tally.of(5, List.of(new int[] { 0, 2, 4 }, new int[] { 1, 3 }));
		assertThat(once.exactlyOnce()).isTrue();
		assertThat(once.total()).isEqualTo(5);

		// 3 ran in both instances, 1 ran twice in one, 4 never ran
		Tally wrong = Tally.of(5, List.of(new int[] { 0, 1, 1, 3 }, new int[] { 2, 3 }));
		assertThat(wrong.exactlyOnce()).isFalse();
		assertThat(wrong.missing()).isEqualTo(1);
		assertThat(wrong.duplicated()).isEqualTo(2);
		assertThat(wrong.total()).isEqualTo(6);
		assertThat(wrong).hasToString("NOT exactly once: 1 missing, 2 ran more than once");
	}

	@Test
	void tallyRejectsAnIndexOutsideTheMessages() {
		assertThatIllegalStateException().isThrownBy(() -> Tally.of(3, List.of(new int[] { 0, 3 })))
			.withMessageContaining("index 3 outside 0..2");
	}

	@Test
	void sidesAreParsedByName() {
		assertThat(Side.parse("one-commit-tx")).isEqualTo(new Side("one-commit-tx", false, 0, 0, true, false));
		assertThat(Side.parse("one-commit-tx-delete").deleteWhenDone()).isTrue();
		assertThat(Side.parse("one-commit").transactions()).isFalse();
		Side dbs = Side.parse("dbs(1.0,4.0)");
		assertThat(dbs.dbScheduler()).isTrue();
		assertThat(dbs.lowerLimit()).isEqualTo(1.0);
		assertThat(dbs.upperLimit()).isEqualTo(4.0);
		assertThatIllegalArgumentException().isThrownBy(() -> Side.parse("dbs(1.0)"))
			.withMessageContaining("Unknown side 'dbs(1.0)'")
			.withMessageContaining("dbs(lower,upper)");
	}

	@Test
	void medianOfAnOddAndAnEvenCount() {
		assertThat(QueueScalingBenchmark.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
		assertThat(QueueScalingBenchmark.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
	}

}
