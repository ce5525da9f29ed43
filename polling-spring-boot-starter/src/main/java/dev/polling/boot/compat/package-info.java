/**
 * Migration from isy-polling: its {@code isy.polling.*} properties, its {@code PollingVerwalter}
 * API and its {@code @PollingAktion} annotation, mapped onto this library. See
 * {@code docs/migration-from-isy-polling.md}.
 */
@NullMarked
package dev.polling.boot.compat;

import org.jspecify.annotations.NullMarked;
