/**
 * The delivery guard: outgoing messages stored in the business transaction and sent at most once;
 * a send whose outcome is unknown becomes IN_DOUBT instead of being sent again (unless the
 * destination is idempotent). Entry points: {@link dev.polling.jdbc.delivery.DeliveryGuard} and
 * {@link dev.polling.jdbc.delivery.DeliveryDispatcher}.
 */
@NullMarked
package dev.polling.jdbc.delivery;

import org.jspecify.annotations.NullMarked;
