package dev.polling.console;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.openqa.selenium.WebDriver;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A browser test class with one application and one browser for all its tests (started in the
 * subclass's {@code @BeforeAll}, per-class lifecycle), both stopped after the last test.
 */
abstract class SingleAppBrowserTests {

	WebDriver browser;

	ConfigurableApplicationContext app;

	final JsonMapper json = JsonMapper.builder().build();

	@AfterAll
	void stop() {
		if (this.browser != null) {
			this.browser.quit();
		}
		if (this.app != null) {
			this.app.close();
		}
	}

	/** The error text of a refused console request. */
	String error(HttpResponse<String> response) {
		return this.json.readTree(response.body()).get("error").asString();
	}

}
