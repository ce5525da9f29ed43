package dev.polling.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium from the system's packages (Debian: {@code apt-get install chromium chromium-driver}),
 * driven through the system's chromedriver; never a downloaded driver. Without them the browser
 * tests are skipped with the reason, or fail when {@code -Dpolling.test.require-chromium=true} (CI).
 */
final class Chromium {

	static final String REQUIRE = "polling.test.require-chromium";

	private static final String[] BROWSERS = { "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome" };

	private static final String[] DRIVERS = { "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver" };

	private Chromium() {
	}

	/** A new headless browser, or the test is skipped (failed under CI) when none is installed. */
	static WebDriver start() {
		String browser = firstExecutable(BROWSERS);
		String driver = firstExecutable(DRIVERS);
		if (browser == null || driver == null) {
			String reason = "No Chromium and chromedriver installed (looked for " + String.join(", ", BROWSERS) + " and "
					+ String.join(", ", DRIVERS) + "); install them with: apt-get install -y chromium chromium-driver";
			if (Boolean.getBoolean(REQUIRE)) {
				throw new IllegalStateException(reason + " (" + REQUIRE + "=true: the browser tests must run)");
			}
			Assumptions.abort(reason);
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(browser);
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
				"--window-size=1200,1000", "--lang=en-US");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
			.usingAnyFreePort()
			.build();
		ChromeDriver chrome = new ChromeDriver(service, options);
		chrome.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
		return chrome;
	}

	/** Set to true to write the screenshots into docs/console/ of the repository (for docs/console.md). */
	static final String SCREENSHOTS = "polling.test.console-screenshots";

	/**
	 * Saves a screenshot of the page as {name}.png: into docs/console/ of the repository with
	 * {@code -Dpolling.test.console-screenshots=true}, else into target/console-screenshots/ (so
	 * that a test run does not change the repository's files).
	 */
	static void screenshot(WebDriver driver, String name, int width, int height) throws IOException {
		driver.manage().window().setSize(new Dimension(width, height));
		Path dir = Boolean.getBoolean(SCREENSHOTS) ? Path.of("..", "docs", "console") : Path.of("target", "console-screenshots");
		Files.createDirectories(dir);
		byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
		Files.write(dir.resolve(name + ".png"), png);
	}

	/**
	 * Clicks what the selector finds; again if the page re-rendered it meanwhile (the console
	 * replaces its content when its data changed).
	 */
	static void click(WebDriver driver, String selector) {
		new org.openqa.selenium.support.ui.WebDriverWait(driver, java.time.Duration.ofSeconds(20))
			.ignoring(org.openqa.selenium.StaleElementReferenceException.class)
			.ignoring(org.openqa.selenium.ElementNotInteractableException.class)
			.until((d) -> {
				d.findElement(org.openqa.selenium.By.cssSelector(selector)).click();
				return true;
			});
	}

	private static String firstExecutable(String[] candidates) {
		for (String candidate : candidates) {
			if (new File(candidate).canExecute()) {
				return candidate;
			}
		}
		return null;
	}

}
