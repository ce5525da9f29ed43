/**
 * The {@code polling} health contributor, one component per cluster.
 */
@NullMarked
package dev.polling.boot.health;

import org.jspecify.annotations.NullMarked;
