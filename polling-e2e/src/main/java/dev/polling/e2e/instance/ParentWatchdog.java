package dev.polling.e2e.instance;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code e2e.exit-with-parent=true} (set by the demo), ends this instance when the process
 * that started it ends, so that even a demo driver killed with SIGKILL leaves no instance behind.
 * The demo's mail server does the same ({@link #exitWithParent(Logger)}).
 */
public final class ParentWatchdog {

	private static final Logger logger = LoggerFactory.getLogger(ParentWatchdog.class);

	ParentWatchdog(boolean exitWithParent) {
		if (exitWithParent) {
			exitWithParent(logger);
		}
	}

	/**
	 * Exits this JVM with status 1 when its parent process ends.
	 * @param logger where to say so
	 */
	public static void exitWithParent(Logger logger) {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> {
			logger.warn("The process that started this one ({}) has ended: exiting", parent.pid());
			System.exit(1);
		}));
	}

}
