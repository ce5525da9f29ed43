/**
 * Coordination of polling clusters through a database row, for instances that cannot reach each
 * other over JMX.
 */
@NullMarked
package dev.polling.jdbc.coordination;

import org.jspecify.annotations.NullMarked;
