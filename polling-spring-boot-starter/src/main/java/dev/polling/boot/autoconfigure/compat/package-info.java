/**
 * Auto-configuration of the isy-polling compatibility layer.
 */
@NullMarked
package dev.polling.boot.autoconfigure.compat;

import org.jspecify.annotations.NullMarked;
