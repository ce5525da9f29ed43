/**
 * Implementation details; not part of the public API.
 */
@NullMarked
package dev.polling.core.internal;

import org.jspecify.annotations.NullMarked;
