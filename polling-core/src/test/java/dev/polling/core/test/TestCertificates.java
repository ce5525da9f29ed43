package dev.polling.core.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Self-signed certificates for TLS tests, made with the JDK's keytool for {@code localhost} and
 * {@code 127.0.0.1}. A context made from one store presents its key and trusts its own certificate.
 */
public final class TestCertificates {

	public static final char[] PASSWORD = "changeit".toCharArray();

	private TestCertificates() {
	}

	/** Creates a PKCS12 store with a new self-signed key pair. */
	public static Path keyStore(Path directory, String name) {
		Path file = directory.resolve(name + ".p12");
		String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
		try {
			Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1",
					"-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
					"-keystore", file.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
				.redirectErrorStream(true)
				.start();
			String output = new String(process.getInputStream().readAllBytes());
			if (process.waitFor() != 0) {
				throw new IllegalStateException("keytool failed: " + output);
			}
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A context with the store's key and trusting the certificates of the trust stores. */
	public static SSLContext context(Path keyStore, Path... trustStores) {
		try {
			KeyStore keys = load(keyStore);
			KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
			kmf.init(keys, PASSWORD);
			KeyStore trust = KeyStore.getInstance("PKCS12");
			trust.load(null, null);
			for (Path store : trustStores) {
				KeyStore loaded = load(store);
				for (String alias : java.util.Collections.list(loaded.aliases())) {
					trust.setCertificateEntry(store.getFileName() + "-" + alias, loaded.getCertificate(alias));
				}
			}
			TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			tmf.init(trust);
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
			return context;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static KeyStore load(Path file) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(file)) {
			store.load(in, PASSWORD);
		}
		return store;
	}

}
