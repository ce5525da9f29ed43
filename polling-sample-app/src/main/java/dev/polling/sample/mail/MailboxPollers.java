package dev.polling.sample.mail;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.polling.boot.annotation.PollingCycle;

/**
 * One timer per mailbox, each gated by its own polling cluster (seed 001 §4.1.1: one cluster per
 * mailbox, so different instances can poll different mailboxes). On every instance all three
 * timers fire; {@link PollingCycle} lets the method run only on the instance that holds (or is
 * granted) the cluster, and refreshes its activity when the cycle ends.
 */
@Component
class MailboxPollers {

	private final MailboxReader reader;

	MailboxPollers(MailboxReader reader) {
		this.reader = reader;
	}

	@Scheduled(fixedDelayString = "${sample.poll-delay-millis:1000}")
	@PollingCycle("MAILBOX_1")
	void pollMailbox1() {
		this.reader.poll("MAILBOX_1");
	}

	@Scheduled(fixedDelayString = "${sample.poll-delay-millis:1000}")
	@PollingCycle("MAILBOX_2")
	void pollMailbox2() {
		this.reader.poll("MAILBOX_2");
	}

	@Scheduled(fixedDelayString = "${sample.poll-delay-millis:1000}")
	@PollingCycle("MAILBOX_3")
	void pollMailbox3() {
		this.reader.poll("MAILBOX_3");
	}

}
