package dev.polling.e2e;

import java.util.concurrent.CountDownLatch;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.polling.e2e.instance.ParentWatchdog;

/**
 * The demo's mail server, a real SMTP and IMAP server (GreenMail) in its own process:
 * {@code DemoMailServer <smtp-port> <imap-port> <password> <user>...} creates one mailbox per user
 * ({@code <user>@demo.local}, IMAP login {@code <user>}), prints {@code mail server ready} and runs
 * until it is stopped or the process that started it ends.
 */
public final class DemoMailServer {

	/** The domain of the demo's mail addresses. */
	public static final String DOMAIN = "demo.local";

	private static final Logger logger = LoggerFactory.getLogger(DemoMailServer.class);

	private DemoMailServer() {
	}

	public static void main(String[] args) throws InterruptedException {
		if (args.length < 4) {
			System.err.println("usage: DemoMailServer <smtp-port> <imap-port> <password> <user>...");
			System.exit(2);
		}
		int smtpPort = Integer.parseInt(args[0]);
		int imapPort = Integer.parseInt(args[1]);
		String password = args[2];
		GreenMail mail = new GreenMail(new ServerSetup[] { new ServerSetup(smtpPort, "127.0.0.1", ServerSetup.PROTOCOL_SMTP),
				new ServerSetup(imapPort, "127.0.0.1", ServerSetup.PROTOCOL_IMAP) });
		for (int i = 3; i < args.length; i++) {
			mail.setUser(args[i] + "@" + DOMAIN, args[i], password);
		}
		mail.start();
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			mail.stop();
			stopped.countDown();
		}, "mail-server-shutdown"));
		ParentWatchdog.exitWithParent(logger);
		System.out.println("mail server ready: SMTP 127.0.0.1:" + smtpPort + ", IMAP 127.0.0.1:" + imapPort);
		System.out.flush();
		stopped.await();
	}

}
