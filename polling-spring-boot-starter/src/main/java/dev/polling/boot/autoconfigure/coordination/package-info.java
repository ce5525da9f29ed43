/**
 * Auto-configuration of the coordinators that decide through a store the application already runs:
 * a ShedLock {@code LockProvider} ({@code polling.coordination.kind=shedlock}) or Kubernetes Lease
 * objects ({@code polling.coordination.kind=kubernetes}).
 */
@NullMarked
package dev.polling.boot.autoconfigure.coordination;

import org.jspecify.annotations.NullMarked;
