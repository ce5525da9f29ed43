package de.bund.bva.isyfact.polling.time;

import java.time.Clock;

import de.bund.bva.isyfact.datetime.util.DateTimeUtil;

import org.springframework.util.ClassUtils;

/**
 * The clock of the activity timestamps: isy-datetime's {@code DateTimeUtil.getClock()} when
 * isy-datetime is on the classpath (so tests that set a {@code TestClock} move it), else the system
 * clock.
 */
public final class IsyClock {

	private static final boolean ISY_DATETIME = ClassUtils.isPresent("de.bund.bva.isyfact.datetime.util.DateTimeUtil",
			IsyClock.class.getClassLoader());

	private IsyClock() {
	}

	/** The current clock. */
	public static Clock clock() {
		return ISY_DATETIME ? IsyDateTime.clock() : Clock.systemUTC();
	}

	/** Now in epoch milliseconds. */
	public static long nowMillis() {
		return clock().millis();
	}

	/** Whether isy-datetime's clock is used. */
	public static boolean usesIsyDateTime() {
		return ISY_DATETIME;
	}

	private static final class IsyDateTime {

		static Clock clock() {
			return DateTimeUtil.getClock();
		}

	}

}
