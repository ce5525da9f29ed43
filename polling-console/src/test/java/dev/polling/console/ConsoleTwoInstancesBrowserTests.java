package dev.polling.console;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.console.ConsoleApplications.LongCycle;
import dev.polling.core.PollingManager;

import static dev.polling.console.ConsoleApplications.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications in one JVM, each with its own web server and JMX connector server, peers of each
 * other, actions enabled: the standby's page shows the holder and why not this instance; a pause
 * clicked on the holder's page hands the cluster over and the standby's open page shows the change
 * by itself; bad API input gets a clear 4xx and changes nothing. The two applications and the
 * browser are shared by the tests of this class, which run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleTwoInstancesBrowserTests {

	private static final String CLUSTER_ARTICLE = "article.cluster[data-cluster='" + CLUSTER + "']";

	private final JsonMapper json = JsonMapper.builder().build();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private WebDriver browser;

	private ConfigurableApplicationContext holder;

	private ConfigurableApplicationContext standby;

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		int jmxA = ConsoleApplications.freePort();
		int jmxB = ConsoleApplications.freePort();
		for (String id : List.of("a", "b")) {
			this.contexts.add(ConsoleApplications.start(
					new Class<?>[] { ConsoleApplications.OpenApplication.class, LongCycle.Config.class }, id,
					id.equals("a") ? jmxA : jmxB, List.of(jmxA, jmxB), "management.endpoint.console.access=unrestricted",
					"polling.console.actions-enabled=true", "polling.clusters." + LongCycle.CLUSTER + ".wait-time=10s",
					"spring.task.scheduling.pool.size=2"));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> holders().size() == 1);
		this.holder = holders().get(0);
		this.standby = (this.holder == this.contexts.get(0)) ? this.contexts.get(1) : this.contexts.get(0);
		// the standby has been refused at least once since the holder holds
		await().atMost(Duration.ofSeconds(10))
			.until(() -> manager(this.standby).status(CLUSTER).lastDecision() != null
					&& !manager(this.standby).status(CLUSTER).lastDecision().isGranted());
	}

	@AfterAll
	void stop() {
		if (this.browser != null) {
			this.browser.quit();
		}
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	@Order(1)
	void theStandbysPageShowsTheHolderAndWhyNotThisInstance() throws Exception {
		String holderId = id(this.holder);
		this.browser.get(ConsoleApplications.url(this.standby, "/actuator/console"));
		WebElement cluster = waitFor(By.cssSelector(CLUSTER_ARTICLE));
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(CLUSTER_ARTICLE + " .holder"),
				"instance " + holderId));
		assertThat(cluster.findElement(By.cssSelector("[data-why-not-me]")).getText())
			.contains("Why not this instance:")
			.contains("Instance '" + holderId + "' holds it");
		assertThat(cluster.findElement(By.cssSelector(".decision")).getText()).startsWith("refused: peer-active");
		assertThat(cluster.findElement(By.cssSelector("tr[data-peer='" + holderId.toUpperCase() + "'] .peer-state")).getText())
			.isEqualTo("answered, holding");
		assertThat(cluster.findElement(By.cssSelector("tr[data-peer='" + id(this.standby).toUpperCase() + "'] .peer-state")).getText())
			.startsWith("self");
		assertThat(this.browser.findElement(By.id("problem-list")).getText()).isEqualTo("No problems.");
		assertThat(this.browser.findElement(By.tagName("main")).getText()).doesNotContain("undefined").doesNotContain("null");
		// actions are enabled here: the standby offers a pause too (a standby can be paused so it never takes over)
		assertThat(cluster.findElements(By.cssSelector("button[data-action='pause']"))).hasSize(1);
		Chromium.screenshot(this.browser, "standby", 1100, 900);

		this.browser.get(ConsoleApplications.url(this.holder, "/actuator/console"));
		WebElement held = waitFor(By.cssSelector(CLUSTER_ARTICLE));
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(CLUSTER_ARTICLE + " .holder"),
				"this instance (" + holderId + ")"));
		assertThat(held.findElements(By.cssSelector("[data-why-not-me]"))).isEmpty();
		assertThat(held.findElement(By.cssSelector(".badge.holding")).getText()).isEqualTo("holding");
		assertThat(this.browser.findElement(By.tagName("main")).getText()).doesNotContain("undefined").doesNotContain("null");
		timelineShows(this.browser, CLUSTER_ARTICLE, "this instance now holds it");
		Chromium.screenshot(this.browser, "holder", 1100, 1000);
		Chromium.screenshot(this.browser, "narrow", 400, 1000);
		// readable in a narrow window: the page never scrolls sideways (wide tables scroll inside their own box)
		this.browser.manage().window().setSize(new org.openqa.selenium.Dimension(400, 1000));
		this.browser.findElement(By.cssSelector(CLUSTER_ARTICLE + " details.timeline summary")).getText(); // still there after the resize
		Object overflow = ((org.openqa.selenium.JavascriptExecutor) this.browser)
			.executeScript("return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
		assertThat(((Number) overflow).intValue()).as("sideways overflow of the page at 400 px, in px").isLessThanOrEqualTo(0);
		this.browser.manage().window().setSize(new org.openqa.selenium.Dimension(1200, 1000));
	}

	@Test
	@Order(2)
	void aPauseOnTheHoldersPageHandsTheClusterOverAndTheStandbysOpenPageShowsIt() throws Exception {
		String holderId = id(this.holder);
		String standbyId = id(this.standby);
		// the standby's page stays open in its own tab: it must notice the change by itself
		this.browser.get(ConsoleApplications.url(this.standby, "/actuator/console"));
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(CLUSTER_ARTICLE + " .holder"),
				"instance " + holderId));
		String standbyTab = this.browser.getWindowHandle();
		this.browser.switchTo().newWindow(WindowType.TAB);
		this.browser.get(ConsoleApplications.url(this.holder, "/actuator/console"));
		String holderTab = this.browser.getWindowHandle();
		WebElement pause = waitFor(By.cssSelector(CLUSTER_ARTICLE + " button[data-action='pause']"));
		assertThat(pause.getAccessibleName()).isEqualTo("Pause cluster " + CLUSTER + " on this instance (hand it over)");
		pause.sendKeys(org.openqa.selenium.Keys.ENTER); // keyboard-usable
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Cluster " + CLUSTER + " paused"));
		assertThat(manager(this.holder).isPaused(CLUSTER)).isTrue();
		await().atMost(Duration.ofSeconds(15)).until(() -> manager(this.standby).isHolding(CLUSTER));
		assertThat(manager(this.holder).isHolding(CLUSTER)).isFalse();
		wait(this.browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(CLUSTER_ARTICLE + " .badge.paused")));
		waitFor(By.cssSelector(CLUSTER_ARTICLE + " button[data-action='resume']"));

		this.browser.switchTo().window(standbyTab);
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(CLUSTER_ARTICLE + " .holder"),
				"this instance (" + standbyId + ")"));
		timelineShows(this.browser, CLUSTER_ARTICLE, "this instance took over");
		Chromium.screenshot(this.browser, "after-handover", 1100, 1000);

		// the old holder's page: paused, why not me says so, the action is in its timeline with who did it
		this.browser.switchTo().window(holderTab);
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(CLUSTER_ARTICLE + " [data-why-not-me]"),
				"paused on this instance"));
		timelineShows(this.browser, CLUSTER_ARTICLE, "paused by an anonymous user (no authenticated principal) through the console");

		// resume from the page: it competes again and stays on standby while the other holds
		click(this.browser, By.cssSelector(CLUSTER_ARTICLE + " button[data-action='resume']"));
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Cluster " + CLUSTER + " resumed"));
		assertThat(manager(this.holder).isPaused(CLUSTER)).isFalse();
		this.browser.close();
		this.browser.switchTo().window(standbyTab);
		// the roles are swapped from here on
		ConfigurableApplicationContext previous = this.holder;
		this.holder = this.standby;
		this.standby = previous;
	}

	@Test
	@Order(3)
	void badApiInputGetsAClear4xxAndChangesNothing() throws Exception {
		PollingManager manager = manager(this.holder);
		assertThat(manager.isHolding(CLUSTER)).isTrue();

		HttpResponse<String> unknownCluster = ConsoleApplications.post(this.holder, "/actuator/console/clusters/NO_SUCH", "{\"action\":\"pause\"}");
		assertThat(unknownCluster.statusCode()).isEqualTo(404);
		JsonNode body = this.json.readTree(unknownCluster.body());
		assertThat(body.get("error").asString()).isEqualTo("Unknown polling cluster 'NO_SUCH'");
		assertThat(body.get("valid").toString()).isEqualTo("[\"" + LongCycle.CLUSTER + "\",\"" + CLUSTER + "\"]");

		HttpResponse<String> unknownAction = ConsoleApplications.post(this.holder, "/actuator/console/clusters/" + CLUSTER,
				"{\"action\":\"explode\"}");
		assertThat(unknownAction.statusCode()).isEqualTo(400);
		assertThat(this.json.readTree(unknownAction.body()).get("error").asString())
			.isEqualTo("Unknown action 'explode' for cluster '" + CLUSTER + "'");
		assertThat(this.json.readTree(unknownAction.body()).get("valid").toString()).isEqualTo("[\"pause\",\"resume\",\"hand-over\"]");

		assertThat(ConsoleApplications.post(this.holder, "/actuator/console/clusters/" + CLUSTER, "{}").statusCode()).isEqualTo(400);
		HttpResponse<String> unknownKind = ConsoleApplications.post(this.holder, "/actuator/console/queues/" + CLUSTER,
				"{\"action\":\"pause\"}");
		assertThat(unknownKind.statusCode()).isEqualTo(404);
		assertThat(this.json.readTree(unknownKind.body()).get("error").asString()).startsWith("Unknown kind 'queues'");

		HttpResponse<String> resumeActive = ConsoleApplications.post(this.holder, "/actuator/console/clusters/" + CLUSTER,
				"{\"action\":\"resume\"}");
		assertThat(resumeActive.statusCode()).isEqualTo(409);
		assertThat(this.json.readTree(resumeActive.body()).get("error").asString())
			.isEqualTo("Cluster '" + CLUSTER + "' is already active on this instance; nothing changed");
		assertThat(manager.isPaused(CLUSTER)).isFalse();
		assertThat(manager.isHolding(CLUSTER)).isTrue();

		// double submit: the second pause changes nothing and says so
		assertThat(ConsoleApplications.post(this.standby, "/actuator/console/clusters/" + CLUSTER, "{\"action\":\"pause\"}").statusCode())
			.isEqualTo(200);
		HttpResponse<String> again = ConsoleApplications.post(this.standby, "/actuator/console/clusters/" + CLUSTER, "{\"action\":\"pause\"}");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(this.json.readTree(again.body()).get("error").asString()).contains("is already paused");
		assertThat(ConsoleApplications.post(this.standby, "/actuator/console/clusters/" + CLUSTER, "{\"action\":\"resume\"}").statusCode())
			.isEqualTo(200);
		assertThat(manager(this.standby).isPaused(CLUSTER)).isFalse();

		// only the page's own files are served
		for (String path : List.of("/actuator/console/assets/index.html", "/actuator/console/assets/..%2F..%2Fconsole%2FConsoleEndpoint.class",
				"/actuator/console/assets/%2e%2e/%2e%2e/application.properties", "/actuator/console/nothing",
				"/actuator/console/api/state/more")) {
			HttpResponse<String> response = ConsoleApplications.get(this.holder, path);
			assertThat(response.statusCode()).as(path).isBetween(400, 404);
			assertThat(response.body()).as(path).doesNotContain("class").doesNotContain("polling.");
		}
		HttpResponse<String> script = ConsoleApplications.get(this.holder, "/actuator/console/assets/console.js");
		assertThat(script.statusCode()).isEqualTo(200);
		assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).startsWith("text/javascript"));
		assertThat(manager.isHolding(CLUSTER)).isTrue();
		assertThat(manager.isPaused(CLUSTER)).isFalse();
	}

	/**
	 * A hand-over pressed while the holder's cycle runs (held open at a gate): the page shows it
	 * handing over, the peer neither holds it nor starts a cycle while that cycle runs, and takes
	 * over once it ends; no two cycle bodies ever ran at once (the log of both instances). The old
	 * holder is not paused and says why it does not take the cluster back.
	 */
	@Test
	@Order(4)
	void aHandOverDuringARunningCycleWaitsForItAndThePeerTakesOverAfterwards() throws Exception {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.contexts.stream().filter((c) -> manager(c).isHolding(LongCycle.CLUSTER)).count() == 1);
		ConfigurableApplicationContext from = this.contexts.stream().filter((c) -> manager(c).isHolding(LongCycle.CLUSTER)).findFirst()
			.orElseThrow();
		ConfigurableApplicationContext to = (from == this.contexts.get(0)) ? this.contexts.get(1) : this.contexts.get(0);
		LongCycle held = from.getBean(LongCycle.class);
		LongCycle peer = to.getBean(LongCycle.class);
		String article = "article.cluster[data-cluster='" + LongCycle.CLUSTER + "']";
		held.close();
		try {
			await().atMost(Duration.ofSeconds(15)).until(held::waitingAtTheGate);
			this.browser.get(ConsoleApplications.url(from, "/actuator/console"));
			WebElement handOver = waitFor(By.cssSelector(article + " button[data-action='hand-over']"));
			assertThat(handOver.getAccessibleName()).isEqualTo("Hand cluster " + LongCycle.CLUSTER
					+ " over to a peer (after the running cycle; not paused)");
			handOver.sendKeys(org.openqa.selenium.Keys.ENTER);
			wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
					"Cluster " + LongCycle.CLUSTER + " handed over"));
			wait(this.browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(article + " .badge.handing-over")));
			assertThat(this.browser.findElements(By.cssSelector(article + " button[data-action='hand-over']"))).as("offered again").isEmpty();
			int peerCycles = peer.started();
			// the peer ticks every 300 ms: for 3 s it neither holds the cluster nor starts a cycle while the old one runs
			await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
				.until(() -> !manager(to).isHolding(LongCycle.CLUSTER) && peer.started() == peerCycles && held.waitingAtTheGate());
			assertThat(manager(from).status(LongCycle.CLUSTER).handingOver()).isTrue();
		}
		finally {
			held.open();
		}
		await().atMost(Duration.ofSeconds(15)).until(() -> manager(to).isHolding(LongCycle.CLUSTER) && peer.started() > 0);
		assertThat(LongCycle.mostAtOnce()).as("cycle bodies running at once, both instances").isEqualTo(1);
		assertThat(manager(from).isPaused(LongCycle.CLUSTER)).as("a hand-over is not a pause").isFalse();
		wait(this.browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(article + " [data-why-not-me]"),
				"handed it over"));
		timelineShows(this.browser, article, "handed over by an anonymous user (no authenticated principal) through the console");
		HttpResponse<String> notHeld = ConsoleApplications.post(from, "/actuator/console/clusters/" + LongCycle.CLUSTER,
				"{\"action\":\"hand-over\"}");
		assertThat(notHeld.statusCode()).isEqualTo(409);
		assertThat(this.json.readTree(notHeld.body()).get("error").asString())
			.isEqualTo("This instance does not hold cluster '" + LongCycle.CLUSTER + "'; nothing changed");
	}

	private List<ConfigurableApplicationContext> holders() {
		return this.contexts.stream().filter((c) -> manager(c).isHolding(CLUSTER)).toList();
	}

	private static PollingManager manager(ConfigurableApplicationContext context) {
		return context.getBean(PollingManager.class);
	}

	private static String id(ConfigurableApplicationContext context) {
		return manager(context).settings().instanceId();
	}

	private WebElement waitFor(By by) {
		return wait(this.browser).until(ExpectedConditions.presenceOfElementLocated(by));
	}

	static WebDriverWait wait(WebDriver browser) {
		return new WebDriverWait(browser, Duration.ofSeconds(45));
	}

	/**
	 * Opens an application's console and waits until it shows the cluster, read-only (the instance
	 * line says so), without a button.
	 */
	static void openReadOnly(WebDriver browser, ConfigurableApplicationContext app, String instanceText) {
		browser.get(ConsoleApplications.url(app, "/actuator/console"));
		wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("instance"), instanceText));
		wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("article.cluster[data-cluster='" + CLUSTER + "']")));
		assertThat(browser.findElements(By.tagName("button"))).isEmpty();
	}

	/**
	 * Opens the timeline of the article and waits until it shows the text. The page redraws an
	 * article when its state changes, so every try looks the elements up anew.
	 */
	static void timelineShows(WebDriver browser, String article, String text) {
		wait(browser).ignoring(StaleElementReferenceException.class)
			.withMessage(() -> "the timeline of " + article + " shows '" + text + "'")
			.until((driver) -> {
				WebElement details = driver.findElement(By.cssSelector(article + " details.timeline"));
				if (details.getDomAttribute("open") == null) {
					details.findElement(By.cssSelector("summary")).click();
				}
				return details.getText().contains(text);
			});
	}

	/** Clicks the element, looked up anew if the page redrew it meanwhile. */
	static void click(WebDriver browser, By by) {
		wait(browser).ignoring(StaleElementReferenceException.class).until((driver) -> {
			driver.findElement(by).click();
			return true;
		});
	}

}
