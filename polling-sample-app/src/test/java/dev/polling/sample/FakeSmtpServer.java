package dev.polling.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An SMTP server on a real socket that misbehaves on purpose, for the outcomes GreenMail cannot
 * produce: it answers RCPT with a given reply, and after receiving a mail's content it closes the
 * connection instead of answering "250" (so the client cannot know whether the mail was taken).
 */
public final class FakeSmtpServer implements AutoCloseable {

	private final ServerSocket socket;

	private final String rcptReply;

	private final AtomicInteger contentsReceived = new AtomicInteger();

	private final Thread thread;

	private FakeSmtpServer(String rcptReply) throws IOException {
		this.socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
		this.rcptReply = rcptReply;
		this.thread = new Thread(this::serve, "fake-smtp");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * A server that takes every mail's content and hangs up before confirming it.
	 * @return the running server
	 * @throws IOException if no port could be opened
	 */
	public static FakeSmtpServer hangingUpAfterContent() throws IOException {
		return new FakeSmtpServer("250 OK");
	}

	/**
	 * A server that rejects every recipient.
	 * @param reply the reply to RCPT, e.g. {@code "550 no such user"}
	 * @return the running server
	 * @throws IOException if no port could be opened
	 */
	public static FakeSmtpServer rejectingRecipients(String reply) throws IOException {
		return new FakeSmtpServer(reply);
	}

	public int port() {
		return this.socket.getLocalPort();
	}

	/** How many mails' contents it received completely (up to the final "."). */
	public int contentsReceived() {
		return this.contentsReceived.get();
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	private void serve() {
		while (!this.socket.isClosed()) {
			try (Socket client = this.socket.accept()) {
				converse(client);
			}
			catch (SocketException ex) {
				return; // closed
			}
			catch (IOException ex) {
				// next connection
			}
		}
	}

	private void converse(Socket client) throws IOException {
		BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
		OutputStream out = client.getOutputStream();
		reply(out, "220 fake SMTP");
		String line;
		while ((line = in.readLine()) != null) {
			String command = line.toUpperCase(Locale.ROOT);
			if (command.startsWith("RCPT")) {
				reply(out, this.rcptReply);
			}
			else if (command.startsWith("QUIT")) {
				reply(out, "221 bye");
				return;
			}
			else if (command.startsWith("DATA")) {
				reply(out, "354 go ahead");
				while ((line = in.readLine()) != null && !line.equals(".")) {
					// the mail's content
				}
				if (line != null) {
					this.contentsReceived.incrementAndGet();
				}
				return; // hang up without the final answer
			}
			else {
				reply(out, "250 OK"); // EHLO, HELO, MAIL, RSET, NOOP
			}
		}
	}

	private static void reply(OutputStream out, String line) throws IOException {
		out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
		out.flush();
	}

}
