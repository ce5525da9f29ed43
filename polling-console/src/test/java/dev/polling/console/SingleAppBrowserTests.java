package dev.polling.console;

import org.junit.jupiter.api.AfterAll;
import org.openqa.selenium.WebDriver;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A browser test class with one application and one browser for all its tests (started in the
 * subclass's {@code @BeforeAll}, per-class lifecycle), both stopped after the last test.
 */
abstract class SingleAppBrowserTests {

	WebDriver browser;

	ConfigurableApplicationContext app;

	@AfterAll
	void stop() {
		if (this.browser != null) {
			this.browser.quit();
		}
		if (this.app != null) {
			this.app.close();
		}
	}

}
