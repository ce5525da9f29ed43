/**
 * Fetching mail over IMAP: one @PollingCycle-gated timer per mailbox.
 */
@NullMarked
package dev.polling.sample.mail;

import org.jspecify.annotations.NullMarked;
