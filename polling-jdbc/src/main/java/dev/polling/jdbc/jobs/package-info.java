/**
 * Persistent jobs due at a time, dispatched into the work queue by one instance.
 */
@NullMarked
package dev.polling.jdbc.jobs;

import org.jspecify.annotations.NullMarked;
