/**
 * What the sample needs for each coordination kind beside the starter: a ShedLock
 * {@code LockProvider} on the sample's database for {@code polling.coordination.kind=shedlock}.
 */
@NullMarked
package dev.polling.sample.coordination;

import org.jspecify.annotations.NullMarked;
