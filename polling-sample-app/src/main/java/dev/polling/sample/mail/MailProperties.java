package dev.polling.sample.mail;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the mailboxes are ({@code sample.mail.*}): the IMAP server and, per polling cluster, the
 * account of the mailbox that cluster polls; the SMTP server for the confirmations.
 */
@ConfigurationProperties("sample.mail")
public class MailProperties {

	/** Host of the IMAP server. */
	private String host = "127.0.0.1";

	/** Port of the IMAP server. */
	private int imapPort = 3143;

	/** Port of the SMTP server the confirmation mails go to (on the same host). */
	private int smtpPort = 3025;

	/** Sender address of the confirmation mails. */
	private String confirmationsFrom = "orders@demo.local";

	/** Connect and read timeout of the IMAP connection. */
	private Duration timeout = Duration.ofSeconds(5);

	/** Most mails processed in one cycle; the rest wait for the next tick. */
	private int batchSize = 50;

	/** Simulated business work per mail in the worker (default none); the demo uses it to have work to kill. */
	private Duration processingTime = Duration.ZERO;

	/** The mailbox accounts, by the id of the polling cluster that polls them. */
	private Map<String, Mailbox> mailboxes = new LinkedHashMap<>();

	public String getHost() {
		return this.host;
	}

	public void setHost(String host) {
		this.host = host;
	}

	public int getImapPort() {
		return this.imapPort;
	}

	public void setImapPort(int imapPort) {
		this.imapPort = imapPort;
	}

	public int getSmtpPort() {
		return this.smtpPort;
	}

	public void setSmtpPort(int smtpPort) {
		this.smtpPort = smtpPort;
	}

	public String getConfirmationsFrom() {
		return this.confirmationsFrom;
	}

	public void setConfirmationsFrom(String confirmationsFrom) {
		this.confirmationsFrom = confirmationsFrom;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getProcessingTime() {
		return this.processingTime;
	}

	public void setProcessingTime(Duration processingTime) {
		this.processingTime = processingTime;
	}

	public Map<String, Mailbox> getMailboxes() {
		return this.mailboxes;
	}

	public void setMailboxes(Map<String, Mailbox> mailboxes) {
		this.mailboxes = mailboxes;
	}

	/**
	 * One mailbox account.
	 */
	public static class Mailbox {

		/** IMAP user name; also the inbox source of its mails. */
		private String username = "";

		/** IMAP password. */
		private String password = "";

		public String getUsername() {
			return this.username;
		}

		public void setUsername(String username) {
			this.username = username;
		}

		public String getPassword() {
			return this.password;
		}

		public void setPassword(String password) {
			this.password = password;
		}

	}

}
