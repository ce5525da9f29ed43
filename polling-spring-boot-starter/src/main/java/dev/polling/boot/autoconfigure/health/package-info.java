/**
 * Auto-configuration of the {@code polling} health contributor.
 */
@NullMarked
package dev.polling.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
