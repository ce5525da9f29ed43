package dev.polling.boot.annotation;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * The reflection hints of a method or class carrying a polling annotation: the advisor calls the
 * advised methods reflectively, so an annotated method is registered for invocation (as by
 * {@link SimpleReflectiveProcessor}) and an annotated class with all its public methods, the
 * methods the advisor applies a class-level annotation to.
 */
final class AdvisedMethodsProcessor extends SimpleReflectiveProcessor {

	@Override
	protected void registerTypeHint(ReflectionHints hints, Class<?> type) {
		hints.registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
