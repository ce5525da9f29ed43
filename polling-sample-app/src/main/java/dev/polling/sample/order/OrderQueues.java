package dev.polling.sample.order;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.sample.mail.ConfirmationSender;

/**
 * What the starter's workers and dispatcher run on every instance: the work queue of fetched mails,
 * the follow-up checks, and the SMTP destination of the confirmation mails.
 */
@Configuration(proxyBeanMethods = false)
class OrderQueues {

	@Bean
	QueueSubscription orderMails(OrderService orders) {
		return QueueSubscription.of(OrderService.QUEUE, orders::process);
	}

	@Bean
	QueueSubscription followUpChecks(FollowUpService followUps) {
		return QueueSubscription.of(OrderService.FOLLOW_UPS, followUps::check);
	}

	/**
	 * Not idempotent: an SMTP server delivers a mail sent twice twice. A send whose outcome is unknown
	 * becomes IN_DOUBT and waits for an operator (the endpoint {@code pollingdelivery}).
	 */
	@Bean
	DeliveryDestination confirmations(ConfirmationSender sender) {
		return DeliveryDestination.of(OrderService.CONFIRMATIONS, sender);
	}

}
