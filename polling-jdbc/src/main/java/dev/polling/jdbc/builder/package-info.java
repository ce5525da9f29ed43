/**
 * What the builders of the database parts share, so that every part is built the same way: the
 * dialect and table names of every part ({@link dev.polling.jdbc.builder.PartBuilder}), the data
 * source, connections and backoff of the stores ({@link dev.polling.jdbc.builder.StoreBuilder}),
 * the instance id, lease and attempts of the parts that claim rows
 * ({@link dev.polling.jdbc.builder.ClaimBuilder}), and the status and threads of the worker
 * runtimes ({@link dev.polling.jdbc.builder.RuntimeBuilder}).
 */
@NullMarked
package dev.polling.jdbc.builder;

import org.jspecify.annotations.NullMarked;
