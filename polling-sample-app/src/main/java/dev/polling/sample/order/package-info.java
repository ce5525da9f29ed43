/**
 * The business side: an order row per mail, with an inbox receipt in the same transaction.
 */
@NullMarked
package dev.polling.sample.order;

import org.jspecify.annotations.NullMarked;
