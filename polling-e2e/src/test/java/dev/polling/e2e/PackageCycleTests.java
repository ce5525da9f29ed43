package dev.polling.e2e;

import dev.polling.core.test.ModulePackageCycles;

/** No two packages of this module depend on each other (issue 32); the check is {@link ModulePackageCycles}. */
class PackageCycleTests extends ModulePackageCycles {
}
