/**
 * The console's views of the database parts (work queue, delivery guard), when polling-jdbc is present.
 */
@NullMarked
package dev.polling.console.jdbc;

import org.jspecify.annotations.NullMarked;
