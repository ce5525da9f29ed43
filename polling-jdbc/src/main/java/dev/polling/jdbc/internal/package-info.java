/**
 * Implementation shared by the work queue and the delivery guard (claims with leases and fencing,
 * argument checks). Not an API: may change in any release.
 */
@NullMarked
package dev.polling.jdbc.internal;

import org.jspecify.annotations.NullMarked;
