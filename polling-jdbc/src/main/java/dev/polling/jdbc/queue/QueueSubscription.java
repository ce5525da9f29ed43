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
 * Where the workers run handlers in transactions ({@link QueueWorkers.Builder#transactions}, which
 * the starter sets when the application has a transaction manager), a handler whose work is not in
 * this database (a call to a web service, a mail sent) can run outside them:
 * {@code QueueSubscription.of("calls", handler).withoutTransaction()}. Its message is then completed
 * right after it returns, in a statement that commits by itself: no pooled connection is held while
 * the handler runs, and the completion is one round trip instead of two (the statement, then the
 * commit). A crash between the handler's return and that commit runs the handler again, as it would
 * in a transaction for work outside the database.
 *
 * @param queue the queue name
 * @param handler the handler
 * @param transactional whether the handler runs in the workers' transaction, if they have one (the
 * default); {@code false} runs it outside, its completion committed on its own right after it
 */
public record QueueSubscription(String queue, QueueHandler handler, boolean transactional) {

	/**
	 * Validates the subscription.
	 * @param queue the queue name
	 * @param handler the handler
	 * @param transactional whether the handler runs in the workers' transaction, if they have one
	 */
	public QueueSubscription {
		QueueEnqueues.validate(queue, null, "");
		Objects.requireNonNull(handler, "handler must not be null");
	}

	/**
	 * A subscription whose handler runs in the workers' transaction, if they have one.
	 * @param queue the queue name
	 * @param handler the handler
	 */
	public QueueSubscription(String queue, QueueHandler handler) {
		this(queue, handler, true);
	}

	/**
	 * Creates a subscription whose handler runs in the workers' transaction, if they have one.
	 * @param queue the queue name
	 * @param handler the handler
	 * @return the subscription
	 */
	public static QueueSubscription of(String queue, QueueHandler handler) {
		return new QueueSubscription(queue, handler);
	}

	/**
	 * This subscription with its handler run outside the workers' transactions, for handlers whose
	 * work is not in this database: the message's completion commits by itself right after the
	 * handler returns.
	 * @return the subscription, not transactional
	 */
	public QueueSubscription withoutTransaction() {
		return new QueueSubscription(this.queue, this.handler, false);
	}

}
