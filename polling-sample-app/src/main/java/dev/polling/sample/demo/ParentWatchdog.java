package dev.polling.sample.demo;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * With {@code sample.exit-with-parent=true} (set by the demo), ends this instance when the process
 * that started it ends, so that even a demo driver killed with SIGKILL leaves no instance behind.
 */
@Component
@ConditionalOnBooleanProperty("sample.exit-with-parent")
class ParentWatchdog {

	private static final Logger logger = LoggerFactory.getLogger(ParentWatchdog.class);

	ParentWatchdog() {
		exitWithParent(logger);
	}

	static void exitWithParent(Logger logger) {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> {
			logger.warn("The process that started this one ({}) has ended: exiting", parent.pid());
			System.exit(1);
		}));
	}

}
