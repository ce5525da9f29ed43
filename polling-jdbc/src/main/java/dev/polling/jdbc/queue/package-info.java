/**
 * The work queue: messages processed by workers on every instance, with batch claims, leases in
 * database time, fencing, per-business-key ordering, retries and dead letters. Entry points:
 * {@link dev.polling.jdbc.queue.WorkQueue} and {@link dev.polling.jdbc.queue.QueueWorkers}.
 */
@NullMarked
package dev.polling.jdbc.queue;

import org.jspecify.annotations.NullMarked;
