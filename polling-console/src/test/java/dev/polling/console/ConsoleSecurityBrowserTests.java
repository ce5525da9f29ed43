package dev.polling.console;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.support.ui.ExpectedConditions;


import dev.polling.core.PollingManager;

import static dev.polling.console.ConsoleApplications.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console inside an application's Spring Security rules (form login; users "viewer" and
 * "operator"; {@code polling.console.action-role=OPERATOR}): an anonymous user sees nothing but the
 * login, a user without the operator role sees the page without actions and is refused when acting
 * anyway, the operator can act and the action is recorded with the operator's name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleSecurityBrowserTests extends SingleAppBrowserTests {

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		this.app = ConsoleApplications.start(ConsoleApplications.SecuredApplication.class, "secured", ConsoleApplications.freePort(),
				List.of(), "management.endpoint.console.access=unrestricted", "polling.console.actions-enabled=true",
				"polling.console.action-role=OPERATOR");
	}

	@Test
	void anonymousSeesNothingAViewerCannotActTheOperatorCan() throws Exception {
		// anonymous: neither the page nor its data
		for (String path : List.of("/actuator/console", "/actuator/console/api/state", "/actuator/console/api/changes")) {
			HttpResponse<String> response = ConsoleApplications.get(this.app, path);
			assertThat(response.statusCode()).as(path).isNotEqualTo(200);
			assertThat(response.body()).as(path).doesNotContain(CLUSTER);
		}
		HttpResponse<String> anonymousPause = ConsoleApplications.post(this.app, "/actuator/console/clusters/" + CLUSTER,
				"{\"action\":\"pause\"}");
		assertThat(anonymousPause.statusCode()).isIn(302, 401, 403);
		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.urlContains("/login"));
		assertThat(this.browser.getPageSource()).doesNotContain(CLUSTER);

		// a viewer: the page without actions; acting anyway is refused, naming the role
		login("viewer");
		ConsoleTwoInstancesBrowserTests.openReadOnly(this.browser, this.app, "read-only for you");
		Map<?, ?> refused = fetchPause();
		assertThat(refused.get("status")).isEqualTo(403L);
		assertThat((String) refused.get("body")).contains("Actions need the role 'OPERATOR' (polling.console.action-role); 'viewer' does not have it");
		assertThat(this.app.getBean(PollingManager.class).isPaused(CLUSTER)).isFalse();

		// the operator: the pause button, and the action recorded with the operator's name
		this.browser.manage().deleteAllCookies();
		login("operator");
		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.elementToBeClickable(By.cssSelector("button[data-action='pause']")))
			.click();
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Cluster " + CLUSTER + " paused"));
		assertThat(this.app.getBean(PollingManager.class).isPaused(CLUSTER)).isTrue();
		ConsoleTwoInstancesBrowserTests.timelineShows(this.browser, "article", "paused by 'operator' through the console");
		ConsoleTwoInstancesBrowserTests.click(this.browser, By.cssSelector("button[data-action='resume']"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Cluster " + CLUSTER + " resumed"));
		assertThat(this.app.getBean(PollingManager.class).isPaused(CLUSTER)).isFalse();
	}

	private void login(String user) {
		this.browser.get(ConsoleApplications.url(this.app, "/login"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.presenceOfElementLocated(By.name("username")));
		this.browser.findElement(By.name("username")).sendKeys(user);
		this.browser.findElement(By.name("password")).sendKeys(ConsoleApplications.SecuredApplication.PASSWORD);
		this.browser.findElement(By.cssSelector("button[type='submit']")).click();
		ConsoleTwoInstancesBrowserTests.wait(this.browser).until(ExpectedConditions.not(ExpectedConditions.urlContains("/login")));
	}

	/** A pause requested from the page's own origin with the page's session, as a user could from the browser's console. */
	private Map<?, ?> fetchPause() {
		Object result = ((JavascriptExecutor) this.browser).executeAsyncScript("""
				const done = arguments[arguments.length - 1];
				fetch(location.pathname + '/clusters/%s', { method: 'POST', headers: { 'Content-Type': 'application/json' },
				    body: JSON.stringify({ action: 'pause' }) })
				  .then(async (r) => done({ status: r.status, body: await r.text() }))
				  .catch((e) => done({ status: -1, body: String(e) }));
				""".formatted(CLUSTER));
		return (Map<?, ?>) result;
	}

}
