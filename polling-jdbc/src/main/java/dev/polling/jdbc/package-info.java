/**
 * Plain-JDBC foundation of the database parts: {@link dev.polling.jdbc.Dialect dialect detection},
 * {@link dev.polling.jdbc.ConnectionProvider connection access} that can join the caller's
 * transaction, {@link dev.polling.jdbc.TableNames table naming}, {@link dev.polling.jdbc.Schema
 * versioned schema migrations} shipped in the jar and {@link dev.polling.jdbc.DatabaseTime database time}.
 */
@NullMarked
package dev.polling.jdbc;

import org.jspecify.annotations.NullMarked;
