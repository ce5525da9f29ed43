package dev.polling.jdbc.queue;

import org.jspecify.annotations.Nullable;

/**
 * A message to enqueue with {@link WorkQueue#enqueueAll}.
 *
 * @param businessKey the ordering key (messages of one key are processed one at a time, in
 * insertion order), or {@code null} for no ordering
 * @param payload the payload
 */
public record NewMessage(@Nullable String businessKey, String payload) {
}
