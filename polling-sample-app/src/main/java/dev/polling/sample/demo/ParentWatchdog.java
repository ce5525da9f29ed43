package dev.polling.sample.demo;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * With {@code sample.exit-with-parent=true} (set by the demo), ends this instance when the process
 * that started it ends, so that even a demo driver killed with SIGKILL leaves no instance behind.
 * The property is read when the bean is created, not in a bean condition, so that it also works
 * in an application processed ahead of time (Spring AOT fixes conditions at build time).
 */
@Component
class ParentWatchdog {

	private static final Logger logger = LoggerFactory.getLogger(ParentWatchdog.class);

	ParentWatchdog(@Value("${sample.exit-with-parent:false}") boolean exitWithParent) {
		if (exitWithParent) {
			exitWithParent(logger);
		}
	}

	static void exitWithParent(Logger logger) {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> {
			logger.warn("The process that started this one ({}) has ended: exiting", parent.pid());
			System.exit(1);
		}));
	}

}
