package dev.polling.sample.order;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.jdbc.queue.QueueSubscription;

/**
 * What the starter's workers run on every instance: the work queue of fetched mails and the follow-up
 * checks (the SMTP destination of the confirmation mails is {@code mail.ConfirmationDestination}).
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

}
