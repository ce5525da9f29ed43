package dev.polling.console;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

import dev.polling.core.PollingManager;

import static dev.polling.console.ConsoleApplications.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a WebFlux application (Netty): the page, its files and its data are served, a
 * pause clicked on the page pauses the cluster, and bad input gets the same 4xx as with Spring MVC.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleWebFluxBrowserTests extends SingleAppBrowserTests {

	@BeforeAll
	void start() throws Exception {
		this.browser = Chromium.start();
		this.app = ConsoleApplications.start(ReactiveApplication.class, "reactive", ConsoleApplications.freePort(), List.of(),
				"spring.main.web-application-type=reactive", "management.endpoint.console.access=unrestricted",
				"polling.console.actions-enabled=true");
	}

	@Test
	void thePageWorksOnWebFlux() throws Exception {
		assertThat(this.app.getClass().getName()).contains("Reactive");
		HttpResponse<String> script = ConsoleApplications.get(this.app, "/actuator/console/assets/console.js");
		assertThat(script.statusCode()).isEqualTo(200);
		assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).startsWith("text/javascript"));
		assertThat(ConsoleApplications.get(this.app, "/actuator/console/assets/other.js").statusCode()).isEqualTo(404);

		this.browser.get(ConsoleApplications.url(this.app, "/actuator/console"));
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("article.cluster[data-cluster='" + CLUSTER + "'] .holder"),
					"this instance (reactive)"));
		this.browser.findElement(By.cssSelector("button[data-action='pause']")).click();
		ConsoleTwoInstancesBrowserTests.wait(this.browser)
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Cluster " + CLUSTER + " paused"));
		assertThat(this.app.getBean(PollingManager.class).isPaused(CLUSTER)).isTrue();

		HttpResponse<String> again = ConsoleApplications.post(this.app, "/actuator/console/clusters/" + CLUSTER, "{\"action\":\"pause\"}");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(again.body()).contains("is already paused on this instance; nothing changed");
		assertThat(ConsoleApplications.post(this.app, "/actuator/console/clusters/NOPE", "{\"action\":\"pause\"}").statusCode())
			.isEqualTo(404);
	}

	/** A reactive application without access rules of its own. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	static class ReactiveApplication {

		@Bean
		ConsoleApplications.TickCounter tickCounter() {
			return new ConsoleApplications.TickCounter();
		}

		@Bean
		SecurityWebFilterChain open(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().permitAll()).csrf((csrf) -> csrf.disable()).build();
		}

	}

}
