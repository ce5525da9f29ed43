/**
 * Sample application: three IMAP mailboxes, one polling cluster each.
 */
@NullMarked
package dev.polling.sample;

import org.jspecify.annotations.NullMarked;
