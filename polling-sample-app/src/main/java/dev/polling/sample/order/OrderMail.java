package dev.polling.sample.order;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A fetched mail as it travels through the work queue, the confirmation and the follow-up: the
 * payload of those messages, as JSON.
 *
 * @param mailbox the mailbox it was fetched from
 * @param messageKey its inbox key (the normalised Message-ID)
 * @param subject its subject
 * @param customer its sender, to whom the confirmation goes
 * @param fetchedBy the instance whose poll cycle fetched it
 */
public record OrderMail(String mailbox, String messageKey, String subject, String customer, String fetchedBy) {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The payload.
	 * @return this mail as JSON
	 */
	public String toJson() {
		return JSON.writeValueAsString(this);
	}

	/**
	 * Reads a payload written by {@link #toJson()}.
	 * @param json the payload
	 * @return the mail
	 * @throws IllegalArgumentException if the payload is not such a mail
	 */
	public static OrderMail fromJson(String json) {
		try {
			return JSON.readValue(json, OrderMail.class);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Not an order mail payload: " + ex.getOriginalMessage(), ex);
		}
	}

}
