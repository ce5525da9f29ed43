package dev.polling.sample.mail;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.sample.order.OrderService;

/**
 * The delivery guard's destination of the confirmation mails, sent by {@link ConfirmationSender} on
 * whichever instance's dispatcher claims them.
 */
@Configuration(proxyBeanMethods = false)
class ConfirmationDestination {

	/**
	 * Not idempotent: an SMTP server delivers a mail sent twice twice. A send whose outcome is unknown
	 * becomes IN_DOUBT and waits for an operator (the endpoint {@code pollingdelivery}).
	 */
	@Bean
	DeliveryDestination confirmations(ConfirmationSender sender) {
		return DeliveryDestination.of(OrderService.CONFIRMATIONS, sender);
	}

}
