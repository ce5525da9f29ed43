package dev.polling.jdbc.queue;

import java.util.Objects;

/**
 * A handler for one queue, to register with {@link QueueWorkers.Builder#subscribe(QueueSubscription)};
 * with the Spring Boot starter, declare it as a bean and the starter's workers run it.
 * <pre>{@code
 * @Bean
 * QueueSubscription mails(MailProcessor processor) {
 *     return QueueSubscription.of("mails", (message) -> processor.process(message.payload()));
 * }
 * }</pre>
 *
 * @param queue the queue name
 * @param handler the handler
 */
public record QueueSubscription(String queue, QueueHandler handler) {

	/**
	 * Validates the subscription.
	 * @param queue the queue name
	 * @param handler the handler
	 */
	public QueueSubscription {
		WorkQueue.validate(queue, null, "");
		Objects.requireNonNull(handler, "handler must not be null");
	}

	/**
	 * Creates a subscription.
	 * @param queue the queue name
	 * @param handler the handler
	 * @return the subscription
	 */
	public static QueueSubscription of(String queue, QueueHandler handler) {
		return new QueueSubscription(queue, handler);
	}

}
