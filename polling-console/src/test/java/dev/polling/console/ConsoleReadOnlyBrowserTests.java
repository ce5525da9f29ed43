package dev.polling.console;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ConfigurableApplicationContext;

import dev.polling.core.PollingManager;

import static dev.polling.console.ConsoleApplications.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console is read-only unless both the endpoint's access and the console's property allow
 * actions: the page has no action buttons, and the action URL is not mapped (default access) or
 * refused with 403 naming the property (access granted, actions not enabled); nothing changes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleReadOnlyBrowserTests {

	private WebDriver browser;

	private ConfigurableApplicationContext byDefault;

	private ConfigurableApplicationContext accessOnly;

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		this.byDefault = ConsoleApplications.start(ConsoleApplications.OpenApplication.class, "default", ConsoleApplications.freePort(),
				List.of());
		this.accessOnly = ConsoleApplications.start(ConsoleApplications.OpenApplication.class, "access-only",
				ConsoleApplications.freePort(), List.of(), "management.endpoint.console.access=unrestricted");
	}

	@AfterAll
	void stop() {
		if (this.browser != null) {
			this.browser.quit();
		}
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.byDefault, this.accessOnly }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void byDefaultThePageHasNoActionsAndTheActionUrlIsNotMapped() throws Exception {
		this.browser.get(ConsoleApplications.url(this.byDefault, "/actuator/console"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("instance"), "Instance default (standalone) · read-only"));
		assertThat(this.browser.findElement(By.cssSelector("article.cluster[data-cluster='" + CLUSTER + "']")).getText())
			.contains("Mail intake");
		assertThat(this.browser.findElements(By.tagName("button"))).isEmpty();
		Chromium.screenshot(this.browser, "read-only", 1100, 800);

		HttpResponse<String> pause = ConsoleApplications.post(this.byDefault, "/actuator/console/clusters/" + CLUSTER,
				"{\"action\":\"pause\"}");
		// read-only access: the actuator maps no write operation, the path exists only for GET
		assertThat(pause.statusCode()).isEqualTo(405);
		assertThat(this.byDefault.getBean(PollingManager.class).isPaused(CLUSTER)).isFalse();
	}

	@Test
	void withAccessButWithoutTheConsolePropertyActionsAreRefusedWith403() throws Exception {
		ConsoleTwoInstancesBrowserTests.openReadOnly(this.browser, this.accessOnly, "read-only");

		HttpResponse<String> pause = ConsoleApplications.post(this.accessOnly, "/actuator/console/clusters/" + CLUSTER,
				"{\"action\":\"pause\"}");
		assertThat(pause.statusCode()).isEqualTo(403);
		assertThat(JsonMapper.builder().build().readTree(pause.body()).get("error").asString())
			.startsWith("Actions are disabled: the console is read-only. Set polling.console.actions-enabled=true");
		assertThat(this.accessOnly.getBean(PollingManager.class).isPaused(CLUSTER)).isFalse();
	}

}
