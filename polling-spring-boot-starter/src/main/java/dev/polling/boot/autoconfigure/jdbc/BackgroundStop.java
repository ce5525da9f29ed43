package dev.polling.boot.autoconfigure.jdbc;

/**
 * Runs a lifecycle's waiting stop on a thread of its own and then tells the lifecycle processor,
 * so that the beans of one shutdown phase wait side by side rather than one after another.
 */
final class BackgroundStop {

	private BackgroundStop() {
	}

	static void run(String name, Runnable stop, Runnable callback) {
		Thread thread = new Thread(() -> {
			try {
				stop.run();
			}
			finally {
				callback.run();
			}
		}, name);
		thread.setDaemon(true);
		thread.start();
	}

}
