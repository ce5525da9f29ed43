package dev.polling.kubernetes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Test;

/** No two packages of this module depend on each other (issue 32: a module's packages form layers). */
class PackageCycleTests {

	@Test
	void packagesAreFreeOfCycles() {
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.polling.kubernetes");
		SlicesRuleDefinition.slices().matching("dev.polling.(**)").should().beFreeOfCycles().check(classes);
	}

}
