/**
 * Ahead-of-time and native-image support.
 */
@NullMarked
package dev.polling.boot.aot;

import org.jspecify.annotations.NullMarked;
