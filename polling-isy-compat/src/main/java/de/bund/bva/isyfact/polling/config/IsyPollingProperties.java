package de.bund.bva.isyfact.polling.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;

import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The configuration under {@code isy.polling}, bound by {@code @ConfigurationProperties} (so it is
 * read from every property source: files, {@code ApplicationContextRunner} values, environment
 * variables such as {@code ISY_POLLING_CLUSTER_X_WARTEZEIT}). Each JMX connection needs a host and a
 * port from 0 to 65535 (the Bean Validation annotations say so for tools); the binding checks this
 * itself, through {@link Validator}, so an invalid value fails the creation of this bean with or
 * without a Bean Validation provider on the class path. (Not {@code @Validated}: with the
 * validation API but no provider on the class path, Spring Boot would refuse to start.)
 */
public class IsyPollingProperties implements Validator {

	private final Jmx jmx = new Jmx();

	private final Map<String, Cluster> cluster = new HashMap<>();

	private final Nativ nativ = new Nativ();

	/** The JMX domain and the connections to the instances of the polling clusters. */
	public Jmx getJmx() {
		return this.jmx;
	}

	/** The polling clusters by id. */
	public Map<String, Cluster> getCluster() {
		return this.cluster;
	}

	/**
	 * polling-isy-compat's own switch to polling-core's native behaviour ({@code isy.polling.nativ.*});
	 * not an isy-polling property.
	 */
	public Nativ getNativ() {
		return this.nativ;
	}

	@Override
	public boolean supports(Class<?> type) {
		return IsyPollingProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		IsyPollingProperties p = (IsyPollingProperties) target;
		p.getJmx().getVerbindungen().forEach((id, v) -> {
			if (v.getHost() == null || v.getHost().isBlank()) {
				errors.reject("isy.polling.jmx.verbindungen.host",
						"isy.polling.jmx.verbindungen." + id + ".host is not set; set the host of the instance");
			}
			if (v.getPort() < 0 || v.getPort() > 65535) {
				errors.reject("isy.polling.jmx.verbindungen.port",
						"isy.polling.jmx.verbindungen." + id + ".port is " + v.getPort() + "; use 0-65535");
			}
		});
	}

	public static class Jmx {

		private final Map<String, Verbindung> verbindungen = new HashMap<>();

		private String domain = "de.bund.bva.isyfact.polling";

		private Duration timeout = Duration.ofSeconds(2);

		public String getDomain() {
			return this.domain;
		}

		public void setDomain(String domain) {
			this.domain = domain;
		}

		/** The JMX connections by id; none means standalone mode. */
		public Map<String, Verbindung> getVerbindungen() {
			return this.verbindungen;
		}

		/**
		 * How long one instance is waited for when reading its activity (polling-isy-compat's own
		 * property {@code isy.polling.jmx.timeout}, default 2s; isy-polling waits without a bound).
		 */
		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public static class Verbindung {

			private String host;

			private int port;

			private String benutzer;

			private String passwort;

			@NotBlank
			public String getHost() {
				return this.host;
			}

			public void setHost(String host) {
				this.host = host;
			}

			@Min(0)
			@Max(65535)
			public int getPort() {
				return this.port;
			}

			public void setPort(int port) {
				this.port = port;
			}

			public String getBenutzer() {
				return this.benutzer;
			}

			public void setBenutzer(String benutzer) {
				this.benutzer = benutzer;
			}

			public String getPasswort() {
				return this.passwort;
			}

			public void setPasswort(String passwort) {
				this.passwort = passwort;
			}

		}

	}

	public static class Cluster {

		private final List<String> jmxverbindungen = new ArrayList<>();

		private String name;

		private int wartezeit;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		/** Seconds since another instance's last activity before this one may take over. */
		public int getWartezeit() {
			return this.wartezeit;
		}

		public void setWartezeit(int wartezeit) {
			this.wartezeit = wartezeit;
		}

		/** The ids of the JMX connections of this cluster; empty means all. */
		public List<String> getJmxverbindungen() {
			return this.jmxverbindungen;
		}

	}

	/** Switch to polling-core's native behaviour (off by default: isy-polling's behaviour). */
	public static class Nativ {

		private boolean aktiv;

		/**
		 * {@code isy.polling.nativ.aktiv=true}: polling-core decides (self recognition, activity
		 * only extends a hold this instance was granted, strict configuration checks at start).
		 */
		public boolean isAktiv() {
			return this.aktiv;
		}

		public void setAktiv(boolean aktiv) {
			this.aktiv = aktiv;
		}

	}

}
