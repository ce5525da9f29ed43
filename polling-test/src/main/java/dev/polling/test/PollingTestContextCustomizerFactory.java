package dev.polling.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Reads {@link PollingTest} from the test class; declared on the annotation itself. */
class PollingTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
		PollingTest annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, PollingTest.class);
		return (annotation != null) ? PollingTestContextCustomizer.of(annotation) : null;
	}

}
