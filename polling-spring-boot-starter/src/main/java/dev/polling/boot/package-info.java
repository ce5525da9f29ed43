/**
 * What the starter's packages share: the configuration error every start-up check reports.
 */
@NullMarked
package dev.polling.boot;

import org.jspecify.annotations.NullMarked;
