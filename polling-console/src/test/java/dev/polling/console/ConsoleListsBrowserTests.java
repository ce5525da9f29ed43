package dev.polling.console;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

import org.springframework.context.annotation.Bean;

import dev.polling.core.PollingManager;
import dev.polling.jdbc.jobs.JobScheduler;
import dev.polling.jdbc.jobs.JobState;
import dev.polling.jdbc.queue.MessageState;
import dev.polling.jdbc.queue.QueueQuery;
import dev.polling.jdbc.queue.QueueSubscription;
import dev.polling.jdbc.queue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's lists on H2 with pages of 3: keyset paging walks every dead message once, the state
 * and the filters (queue, business key) narrow a list, an id opens the message's detail; "retry all
 * dead of queue X" runs only with the count the operator confirmed (a message that died meanwhile
 * makes it refuse, nothing retried) and retries that queue's dead messages only; jobs: overdue while
 * the dispatching cluster is paused, and a failed job requeued from the page is processed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleListsBrowserTests extends SingleAppBrowserTests {

	private static final String MESSAGES = "article[data-section='messages'] [data-list='messages-0']";

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		this.app = ConsoleApplications.start(new Class<?>[] { ConsoleApplications.OpenApplication.class, ListsApplication.class }, "lists",
				ConsoleApplications.freePort(), List.of(),
				"management.endpoint.console.access=unrestricted", "polling.console.actions-enabled=true", "polling.console.page-size=3",
				"polling.console.job-overdue-after=2s", "spring.datasource.url=jdbc:h2:mem:console-lists;DB_CLOSE_DELAY=-1",
				"polling.jdbc.queue.enabled=true", "polling.jdbc.queue.max-attempts=1", "polling.jdbc.queue.workers.poll-interval=100ms",
				"polling.jdbc.jobs.enabled=true", "polling.jdbc.jobs.cluster=JOBS", "polling.clusters.JOBS.wait-time=10s",
				"polling.jdbc.jobs.dispatch-interval=1s", "spring.task.scheduling.pool.size=2");
	}

	@Test
	@Order(1)
	void listsArePagedFilteredAndOpenAnEntryAndABulkRetryNeedsTheCurrentCount() throws Exception {
		WorkQueue queue = this.app.getBean(WorkQueue.class);
		ListsApplication app = this.app.getBean(ListsApplication.class);
		List<Long> invoices = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			invoices.add(queue.enqueue("invoices", "inv-" + i, "invoice " + i));
		}
		List<Long> reports = List.of(queue.enqueue("reports", "rep-0", "report 0"), queue.enqueue("reports", "rep-1", "report 1"));
		await().atMost(Duration.ofSeconds(30)).until(() -> dead(queue, "invoices") == 7 && dead(queue, "reports") == 2);
		List<Long> all = new ArrayList<>(invoices);
		all.addAll(reports);

		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(MESSAGES + " tbody tr")));
		// every control has an accessible name (a label, its text or aria-label), for screen readers and voice control
		ConsoleTwoInstancesBrowserTests.wait(this.browser).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
			.until((d) -> {
				List<String> unnamed = d.findElements(By.cssSelector("button, input, select, summary"))
					.stream()
					.filter((control) -> control.getAccessibleName().isBlank())
					.map((control) -> control.getTagName() + " " + control.getAttribute("outerHTML"))
					.toList();
				assertThat(unnamed).as("controls without an accessible name").isEmpty();
				return true;
			});
		// keyset paging: 3 per page, every dead message once, in id order
		List<Long> seen = new ArrayList<>(ids());
		assertThat(this.browser.findElement(By.cssSelector(MESSAGES + " h4")).getText()).isEqualTo("Dead messages: 3 shown");
		while (!this.browser.findElements(By.cssSelector(MESSAGES + " button[data-page='next']")).isEmpty()) {
			List<Long> before = ids();
			click(MESSAGES + " button[data-page='next']");
			ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> !ids().equals(before) || ids().isEmpty());
			seen.addAll(ids());
		}
		assertThat(seen).containsExactlyElementsOf(all);
		click(MESSAGES + " button[data-page='previous']");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> ids().equals(all.subList(6, 9)));

		// filters: one queue, then one business key; another state
		filter("DEAD", "reports", "");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> ids().equals(reports));
		filter("DEAD", "", "inv-4");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> ids().equals(List.of(invoices.get(4))));
		filter("NEW", "", "");
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBe(By.cssSelector(MESSAGES + " h4"), "New messages: none"));

		// an entry's detail
		filter("DEAD", "", "inv-4");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> ids().equals(List.of(invoices.get(4))));
		WebElement open = this.browser.findElement(By.cssSelector(MESSAGES + " button[data-detail='" + invoices.get(4) + "']"));
		assertThat(open.getAccessibleName()).isEqualTo("Show message " + invoices.get(4));
		open.sendKeys(org.openqa.selenium.Keys.ENTER);
		WebElement detail = ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(MESSAGES + " .detail")));
		assertThat(detail.findElements(By.cssSelector("[data-field='state']"))).as(detail.getText()).hasSize(1);
		assertThat(detail.findElement(By.cssSelector("[data-field='state']")).getText()).isEqualTo("DEAD");
		assertThat(detail.findElement(By.cssSelector("[data-field='businessKey']")).getText()).isEqualTo("inv-4");
		assertThat(detail.findElement(By.cssSelector("[data-field='lastError']")).getText()).contains("invoice service down");
		Chromium.screenshot(this.browser, "lists", 1100, 1300);
		click(MESSAGES + " button[data-reset]");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until((d) -> ids().equals(all.subList(0, 3)));

		// bulk retry of queue invoices: the operator is asked to confirm 7; one more dies before the confirmation
		String ask = "article[data-section='messages'] button[data-bulk='invoices']";
		click(ask);
		long late = queue.enqueue("invoices", "inv-7", "invoice 7");
		await().atMost(Duration.ofSeconds(20)).until(() -> dead(queue, "invoices") == 8);
		// the page refreshes (8 dead now) and keeps the confirmation the operator was asked for
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(
				By.cssSelector("article[data-section='messages'] [data-section-stats]"), "8"));
		click("article[data-section='messages'] button[data-confirm='7']");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
				"Queue invoices has 8 dead messages now, not the 7 confirmed; nothing was retried"));
		assertThat(dead(queue, "invoices")).as("nothing retried on a stale count").isEqualTo(8);

		// the cause fixed, the new count confirmed: all 8 of invoices are processed once, reports untouched
		app.failing.set(false);
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(ask), "(8)"));
		click(ask);
		click("article[data-section='messages'] button[data-confirm='8']");
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
				"Done: all 8 dead messages of queue invoices retried by an anonymous user"));
		await().atMost(Duration.ofSeconds(20)).until(() -> app.processed.get() == 8);
		invoices.add(late);
		for (long id : invoices) {
			assertThat(queue.admin().entry(id).orElseThrow().state()).as("message %d", id).isEqualTo(MessageState.DONE);
		}
		assertThat(dead(queue, "reports")).isEqualTo(2);
		Thread.sleep(500); // nothing runs twice
		assertThat(app.processed.get()).isEqualTo(8);

		// bad input changes nothing
		HttpResponse<String> noCount = ConsoleApplications.post(this.app, "/actuator/console/messages/bulk",
				"{\"action\":\"retry-dead\",\"group\":\"reports\"}");
		assertThat(noCount.statusCode()).isEqualTo(400);
		assertThat(error(noCount)).startsWith("A bulk action needs the group (queue or destination) and the count");
		HttpResponse<String> stale = ConsoleApplications.post(this.app, "/actuator/console/messages/bulk",
				"{\"action\":\"retry-dead\",\"group\":\"reports\",\"count\":5}");
		assertThat(stale.statusCode()).isEqualTo(409);
		assertThat(this.json.readTree(stale.body()).get("valid").toString()).isEqualTo("[\"2\"]");
		assertThat(ConsoleApplications.get(this.app, "/actuator/console/api/messages/entries?state=WRONG").statusCode()).isEqualTo(400);
		assertThat(error(ConsoleApplications.get(this.app, "/actuator/console/api/messages/entries?state=DEAD&after=x")))
			.startsWith("after must be the id of the last entry");
		assertThat(ConsoleApplications.get(this.app, "/actuator/console/api/messages/entries/987654").statusCode()).isEqualTo(404);
		assertThat(ConsoleApplications.get(this.app, "/actuator/console/api/nothing/entries?state=DEAD").statusCode()).isEqualTo(404);
		assertThat(dead(queue, "reports")).isEqualTo(2);
	}

	@Test
	@Order(2)
	void jobsOverdueWhileTheirClusterIsPausedAndAFailedJobRequeuedFromThePage() throws Exception {
		JobScheduler jobs = this.app.getBean(JobScheduler.class);
		PollingManager manager = this.app.getBean(PollingManager.class);
		ListsApplication app = this.app.getBean(ListsApplication.class);
		app.failing.set(false);
		manager.pause("JOBS");
		long overdue = jobs.schedule("invoices", "monthly-1", Duration.ZERO, "close the month");
		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		WebElement problem = ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-problem='jobs-overdue']")));
		assertThat(problem.getText()).contains("1 scheduled job is overdue").contains("cluster 'JOBS'");
		manager.resume("JOBS");
		await().atMost(Duration.ofSeconds(20)).until(() -> jobs.admin().entry(overdue).orElseThrow().state() == JobState.DISPATCHED);
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("[data-problem='jobs-overdue']")));

		// a job whose handler fails for good is FAILED; requeued from the page it runs again
		app.failing.set(true);
		int processed = app.processed.get();
		long failing = jobs.schedule("invoices", "monthly-2", Duration.ZERO, "close the month");
		await().atMost(Duration.ofSeconds(30)).until(() -> jobs.admin().entry(failing).orElseThrow().state() == JobState.FAILED);
		app.failing.set(false);
		String requeue = "article[data-section='jobs'] tr[data-id='" + failing + "'] button[data-action='requeue']";
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(requeue)));
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(
				By.cssSelector("[data-problem='jobs-failed']"), "1 failed job"));
		click(requeue);
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
				"Done: job " + failing + " (invoices/monthly-2) requeued by an anonymous user"));
		await().atMost(Duration.ofSeconds(20)).until(() -> app.processed.get() == processed + 1);
		HttpResponse<String> again = ConsoleApplications.post(this.app, "/actuator/console/jobs/" + failing, "{\"action\":\"requeue\"}");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(error(again)).contains("not FAILED");
		Thread.sleep(500);
		assertThat(app.processed.get()).isEqualTo(processed + 1);
	}

	/** Types the filters into the list's form and submits it (again from the start if the page re-rendered the form meanwhile). */
	private void filter(String state, String group, String key) {
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.ignoring(org.openqa.selenium.StaleElementReferenceException.class)
			.ignoring(org.openqa.selenium.ElementNotInteractableException.class)
			.until((d) -> {
				typeFilter(state, group, key);
				return true;
			});
	}

	private void typeFilter(String state, String group, String key) {
		WebElement form = this.browser.findElement(By.cssSelector(MESSAGES + " form.filters"));
		new Select(form.findElement(By.name("state"))).selectByValue(state);
		WebElement groupInput = form.findElement(By.name("group"));
		groupInput.clear();
		groupInput.sendKeys(group);
		WebElement keyInput = form.findElement(By.name("key"));
		keyInput.clear();
		keyInput.sendKeys(key);
		form.findElement(By.cssSelector("button[type='submit']")).click();
	}

	/** The ids listed now, read in one step (the page re-renders while it refreshes). */
	private List<Long> ids() {
		Object ids = ((org.openqa.selenium.JavascriptExecutor) this.browser).executeScript("return [...document.querySelectorAll(arguments[0])]"
				+ ".map((row) => row.dataset.id);", MESSAGES + " tbody tr");
		return ((List<?>) ids).stream().map((id) -> Long.valueOf(String.valueOf(id))).toList();
	}

	private void click(String selector) {
		Chromium.click(this.browser, selector);
	}

	private static long dead(WorkQueue queue, String name) {
		return queue.admin().entries(QueueQuery.of(MessageState.DEAD).withQueue(name).withLimit(1000)).size();
	}

	/** Queue "invoices" fails while {@link #failing} is set; "reports" always fails; cluster JOBS dispatches the jobs. */
	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class ListsApplication extends ConsoleApplications.InvoicesQueue {

		@Bean
		QueueSubscription reports() {
			return QueueSubscription.of("reports", (message) -> {
				throw new IllegalStateException("report printer jammed");
			});
		}

	}

}
