package dev.polling.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample application: polls three IMAP mailboxes, one polling cluster per mailbox, and turns
 * every mail into an order row with an inbox receipt by Message-ID in the same transaction. Run
 * several instances with a shared peer list and each mailbox is polled by exactly one of them.
 */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
