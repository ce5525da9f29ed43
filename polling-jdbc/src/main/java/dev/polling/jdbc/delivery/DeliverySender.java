package dev.polling.jdbc.delivery;

/**
 * Sends one outgoing message to its destination (SMTP, HTTP, a broker). The outcome decides what
 * the {@link DeliveryGuard} does:
 * <ul>
 * <li>returns normally: the destination accepted the message; it becomes DELIVERED;</li>
 * <li>throws {@link NotDeliveredException}: the destination definitely did not accept it (refused
 * the connection, answered with a rejection); it is retried after a backoff, and becomes DEAD after
 * the last attempt;</li>
 * <li>throws anything else: the outcome is unknown (timeout after sending, connection lost while
 * waiting for the answer); it becomes IN_DOUBT and is not sent again unless the destination is
 * declared idempotent.</li>
 * </ul>
 */
@FunctionalInterface
public interface DeliverySender {

	/**
	 * Sends the message.
	 * @param delivery the message
	 * @throws NotDeliveredException if it was definitely not delivered
	 * @throws Exception if the outcome is unknown
	 */
	void send(Delivery delivery) throws Exception;

}
