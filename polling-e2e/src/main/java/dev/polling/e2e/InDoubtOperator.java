package dev.polling.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an operator does with confirmations in doubt, through an instance's actuator: read the
 * in-doubt messages from {@code GET /actuator/pollingdelivery}, check each at the destination (here:
 * is the confirmation in the customer's mailbox?), and resolve it with
 * {@code POST /actuator/pollingdelivery/{id}/delivered} if it arrived or {@code .../resend} if not.
 * The demo runs it while it waits for the confirmations.
 */
public final class InDoubtOperator {

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	private final HttpClient http;

	private final JsonMapper json = JsonMapper.builder().build();

	private final String baseUrl;

	/**
	 * An operator working with one instance.
	 * @param http the HTTP client
	 * @param baseUrl the instance's base URL, e.g. {@code http://127.0.0.1:8080}
	 */
	public InDoubtOperator(HttpClient http, String baseUrl) {
		this.http = http;
		this.baseUrl = baseUrl;
	}

	/**
	 * Resolves every in-doubt message the instance lists.
	 * @param arrived whether the message with this idempotency key arrived at its destination
	 * @return one line per message resolved (what was found and done), or per failed request
	 * @throws InterruptedException if interrupted
	 */
	public List<String> resolveAll(Predicate<String> arrived) throws InterruptedException {
		List<String> lines = new ArrayList<>();
		JsonNode inDoubt;
		try {
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(this.baseUrl + "/actuator/pollingdelivery"))
				.timeout(TIMEOUT)
				.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				lines.add("GET /actuator/pollingdelivery answered " + response.statusCode());
				return lines;
			}
			inDoubt = this.json.readTree(response.body()).path("inDoubt");
		}
		catch (IOException | JacksonException ex) {
			lines.add("GET /actuator/pollingdelivery failed: " + ex.getMessage());
			return lines;
		}
		for (JsonNode entry : inDoubt) {
			long id = entry.path("id").asLong();
			String key = entry.path("idempotencyKey").asString();
			boolean found = arrived.test(key);
			String action = found ? "delivered" : "resend";
			String path = "/actuator/pollingdelivery/" + id + "/" + action;
			int status;
			try {
				status = this.http.send(HttpRequest.newBuilder(URI.create(this.baseUrl + path))
					.timeout(TIMEOUT)
					.POST(HttpRequest.BodyPublishers.noBody())
					.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
			}
			catch (IOException ex) {
				lines.add(String.format(Locale.ROOT, "in doubt: %s (delivery %d): POST %s failed: %s", key, id, path,
						ex.getMessage()));
				continue;
			}
			lines.add(String.format(Locale.ROOT, "in doubt: %s (delivery %d) %s at the destination: POST %s -> %d", key, id,
					found ? "found" : "not found", path, status));
		}
		return lines;
	}

}
