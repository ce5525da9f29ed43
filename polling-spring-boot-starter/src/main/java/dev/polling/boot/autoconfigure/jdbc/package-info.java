/**
 * Auto-configuration of polling's JDBC parts: schema initialisation, the
 * {@link dev.polling.jdbc.inbox.Inbox} joining Spring-managed transactions, its retention purge
 * and its Micrometer meters.
 */
@NullMarked
package dev.polling.boot.autoconfigure.jdbc;

import org.jspecify.annotations.NullMarked;
