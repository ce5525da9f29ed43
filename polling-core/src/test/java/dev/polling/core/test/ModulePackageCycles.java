package dev.polling.core.test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Test;

/**
 * No two packages of a module depend on each other (issue 32: a module's packages form layers). Each module's
 * {@code PackageCycleTests} extends this class in the module's root package; that package names what is checked
 * (its main classes, not its tests).
 */
public abstract class ModulePackageCycles {

	@Test
	protected void packagesAreFreeOfCycles() {
		String root = getClass().getPackageName();
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(root);
		// one slice per package below the first two name segments (dev.polling.(**), de.bund.(**))
		String[] segments = root.split("\\.");
		String slices = segments[0] + "." + segments[1] + ".(**)";
		SlicesRuleDefinition.slices().matching(slices).should().beFreeOfCycles().check(classes);
	}

}
