package dev.polling.console;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.context.annotation.Bean;

import dev.polling.jdbc.delivery.DeliveryDestination;
import dev.polling.jdbc.delivery.DeliveryGuard;
import dev.polling.jdbc.delivery.DeliveryState;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The work queue and the delivery guard in the console, on H2: a dead message shows in the problems
 * panel and in the list of dead messages, and retried from the page it is processed; an in-doubt
 * delivery resolved from the page as delivered is not sent again; bad input on these actions (not a
 * number, unknown id, unknown action, an entry not in the state the action needs, a second submit)
 * gets a clear 4xx and changes nothing. The application and the browser are shared by the tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleQueueBrowserTests extends SingleAppBrowserTests {

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		this.app = ConsoleApplications.start(new Class<?>[] { ConsoleApplications.OpenApplication.class, QueueApplication.class }, "queue",
				ConsoleApplications.freePort(), List.of(),
				"management.endpoint.console.access=unrestricted", "polling.console.actions-enabled=true",
				"spring.datasource.url=jdbc:h2:mem:console-queue;DB_CLOSE_DELAY=-1", "polling.jdbc.queue.enabled=true",
				"polling.jdbc.queue.max-attempts=1", "polling.jdbc.queue.workers.poll-interval=100ms", "polling.jdbc.delivery.enabled=true",
				"polling.jdbc.delivery.lease.duration=1s", "polling.jdbc.delivery.recover-interval=500ms",
				"polling.jdbc.delivery.workers.poll-interval=100ms");
	}

	@Test
	void aDeadMessageRetriedFromThePageIsProcessed() throws Exception {
		WorkQueue queue = this.app.getBean(WorkQueue.class);
		QueueApplication invoices = this.app.getBean(QueueApplication.class);
		long id = queue.enqueue("invoices", "customer-7", "invoice-1");
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DEAD);

		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		String row = "article[data-section='messages'] tr[data-id='" + id + "']";
		WebElement dead = ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(row)));
		assertThat(dead.findElement(By.cssSelector("td[data-column='lastError']")).getText()).contains("invoice service down");
		assertThat(dead.findElement(By.cssSelector("td[data-column='businessKey']")).getText()).isEqualTo("customer-7");
		// the counts behind the problems are shared for a second: the problem may show one refresh after the list
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(
				By.cssSelector("[data-problem='dead-messages']"), "1 dead message in queue invoices"));
		Chromium.screenshot(this.browser, "queue", 1100, 1100);

		// bad input: nothing changes
		assertThat(status(post("abc", "retry"))).isEqualTo(400);
		HttpResponse<String> unknown = post("987654", "retry");
		assertThat(unknown.statusCode()).isEqualTo(404);
		assertThat(error(unknown)).startsWith("Unknown queue message 987654");
		HttpResponse<String> badAction = post(String.valueOf(id), "explode");
		assertThat(badAction.statusCode()).isEqualTo(400);
		assertThat(this.json.readTree(badAction.body()).get("valid").toString()).isEqualTo("[\"retry\",\"discard\"]");
		assertThat(queue.admin().entry(id).orElseThrow().state()).isEqualTo(MessageState.DEAD);

		// the cause is fixed; retry from the page
		invoices.failing.set(false);
		Chromium.click(this.browser, row + " button[data-action='retry']");
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
					"Done: message " + id + " of queue invoices retried by an anonymous user"));
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.admin().entry(id).orElseThrow().state() == MessageState.DONE);
		assertThat(invoices.processed.get()).isEqualTo(1);
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBe(By.id("problem-list"), "No problems."));
		assertThat(this.browser.findElements(By.cssSelector(row))).isEmpty();

		// a second retry (double submit) is refused: the message is not dead any more
		HttpResponse<String> again = post(String.valueOf(id), "retry");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(error(again)).isEqualTo("Message " + id + " is DONE, not DEAD: only dead messages can be retried or discarded; "
				+ "nothing changed");
		assertThat(invoices.processed.get()).isEqualTo(1);
	}

	@Test
	void anInDoubtDeliveryResolvedFromThePage() throws Exception {
		DeliveryGuard guard = this.app.getBean(DeliveryGuard.class);
		QueueApplication crm = this.app.getBean(QueueApplication.class);
		assertThat(guard.store("crm", "order-42", "{\"order\":42}")).isTrue();
		// the send hangs past its lease (1 s): nobody knows whether the CRM got it
		await().atMost(Duration.ofSeconds(20)).until(() -> guard.admin().stats().stream().anyMatch((s) -> s.inDoubt() == 1));
		long id = guard.admin().entries(DeliveryState.IN_DOUBT, 10).get(0).id();
		crm.hanging.countDown();

		assertThat(status(post("deliveries", "abc", "delivered"))).isEqualTo(400);
		assertThat(status(post("deliveries", "987654", "delivered"))).isEqualTo(404);
		HttpResponse<String> retryInDoubt = post("deliveries", String.valueOf(id), "retry");
		assertThat(retryInDoubt.statusCode()).isEqualTo(409);
		assertThat(error(retryInDoubt)).isEqualTo("Delivery " + id + " is IN_DOUBT, not DEAD: 'retry' needs DEAD; nothing changed");
		assertThat(guard.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.IN_DOUBT);

		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		String row = "article[data-section='deliveries'] [data-state='IN_DOUBT'] tr[data-id='" + id + "']";
		WebElement inDoubt = ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(row)));
		assertThat(inDoubt.findElement(By.cssSelector("td[data-column='idempotencyKey']")).getText()).isEqualTo("order-42");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(
				By.cssSelector("[data-problem='in-doubt-deliveries']"), "1 in-doubt delivery to crm"));
		Chromium.screenshot(this.browser, "in-doubt", 1100, 1400);
		WebElement delivered = this.browser.findElement(By.cssSelector(row + " button[data-action='delivered']"));
		assertThat(delivered.getAccessibleName()).isEqualTo("Mark delivered delivery " + id);
		Chromium.click(this.browser, row + " button[data-action='delivered']");
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
					"Done: delivery " + id + " to crm: resolved as delivered by an anonymous user"));
		assertThat(guard.admin().entry(id).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
		assertThat(crm.sends.get()).as("resolved as delivered: not sent again").isEqualTo(1);
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("[data-problem='in-doubt-deliveries']")));
		HttpResponse<String> again = post("deliveries", String.valueOf(id), "delivered");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(error(again)).contains("is DELIVERED, not IN_DOUBT");
	}

	private HttpResponse<String> post(String id, String action) throws Exception {
		return post("messages", id, action);
	}

	private HttpResponse<String> post(String kind, String id, String action) throws Exception {
		return ConsoleApplications.post(this.app, "/actuator/console/" + kind + "/" + id, "{\"action\":\"" + action + "\"}");
	}

	private static int status(HttpResponse<String> response) {
		return response.statusCode();
	}

	/** A standalone application with the work queue on H2; queue "invoices" fails while {@link #failing} is set. */
	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class QueueApplication extends ConsoleApplications.InvoicesQueue {

		final CountDownLatch hanging = new CountDownLatch(1);

		final AtomicInteger sends = new AtomicInteger();

		/** A CRM without deduplication whose first send hangs until the test lets it go. */
		@Bean
		DeliveryDestination crm() {
			return DeliveryDestination.of("crm", (delivery) -> {
				this.sends.incrementAndGet();
				this.hanging.await(30, TimeUnit.SECONDS);
			});
		}

	}

}
