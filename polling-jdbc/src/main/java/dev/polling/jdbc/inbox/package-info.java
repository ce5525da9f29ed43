/**
 * The inbox: a duplicate-proof receipt of fetched messages in the database, recorded in the same
 * transaction as the work the message causes. Entry point: {@link dev.polling.jdbc.inbox.Inbox}.
 */
@NullMarked
package dev.polling.jdbc.inbox;

import org.jspecify.annotations.NullMarked;
