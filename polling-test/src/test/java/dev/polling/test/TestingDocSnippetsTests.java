package dev.polling.test;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every {@code ```java} block of {@code docs/testing.md} compiles as shown, imports included,
 * against this module's test classpath (the starter, {@code polling-test}, Spring Boot's test
 * starter): a reader can paste each one into a test source folder. A failure names the line of
 * {@code docs/testing.md} and the compiler's message.
 */
class TestingDocSnippetsTests {

	private static final Path DOC = Path.of("..", "docs", "testing.md");

	private static final Pattern TYPE_NAME = Pattern
		.compile("^(?:public\\s+|abstract\\s+|final\\s+)*(?:class|interface|record|enum)\\s+([A-Za-z_$][A-Za-z0-9_$]*)",
				Pattern.MULTILINE);

	@TempDir
	Path classes;

	@TestFactory
	Stream<DynamicTest> everyJavaSnippetOfTheTestingPageCompiles() throws IOException {
		List<Snippet> snippets = javaSnippets(DOC);
		assertThat(snippets).as("```java blocks in %s", DOC).isNotEmpty();
		return snippets.stream()
			.map((snippet) -> DynamicTest.dynamicTest("docs/testing.md line " + snippet.firstLine(),
					() -> assertCompiles(snippet)));
	}

	private void assertCompiles(Snippet snippet) throws IOException {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		assertThat(compiler).as("a JDK's compiler (javax.tools); the tests run on a JRE").isNotNull();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		Path output = Files.createTempDirectory(this.classes, "snippet");
		List<String> options = List.of("-proc:none", "-classpath", testClasspath(), "-d", output.toString());
		boolean compiled;
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			compiled = compiler.getTask(null, files, diagnostics, options, null, List.of(snippet.source())).call();
		}
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.add("docs/testing.md:" + (snippet.firstLine() + diagnostic.getLineNumber() - 1) + ": "
						+ diagnostic.getMessage(Locale.ROOT));
			}
		}
		if (!compiled || !errors.isEmpty()) {
			fail("The ```java snippet at docs/testing.md line %d does not compile as shown:%n%s", snippet.firstLine(),
					String.join(System.lineSeparator(), errors));
		}
	}

	/**
	 * The classpath of this test run: surefire passes its tests' classpath in a manifest-only jar
	 * and names the real one in {@code surefire.test.class.path}.
	 */
	private static String testClasspath() {
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

	/** The {@code ```java} blocks of a Markdown file, each with the line number of its first line. */
	static List<Snippet> javaSnippets(Path markdown) throws IOException {
		List<String> lines = Files.readAllLines(markdown, StandardCharsets.UTF_8);
		List<Snippet> snippets = new ArrayList<>();
		StringBuilder code = null;
		int first = 0;
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i);
			if (code == null && line.strip().equals("```java")) {
				code = new StringBuilder();
				first = i + 2;
			}
			else if (code != null && line.strip().equals("```")) {
				snippets.add(new Snippet(first, code.toString()));
				code = null;
			}
			else if (code != null) {
				code.append(line).append('\n');
			}
		}
		if (code != null) {
			throw new IllegalStateException(markdown + ": the ```java block from line " + first + " is not closed");
		}
		return snippets;
	}

	/** One {@code ```java} block: its first code line in the Markdown file and its text. */
	record Snippet(int firstLine, String code) {

		/** The block as a source file named after its first top-level type, as javac requires of a public one. */
		JavaFileObject source() {
			Matcher name = TYPE_NAME.matcher(this.code);
			String type = name.find() ? name.group(1) : "Snippet" + this.firstLine;
			return new SimpleJavaFileObject(URI.create("string:///" + type + JavaFileObject.Kind.SOURCE.extension),
					JavaFileObject.Kind.SOURCE) {

				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return Snippet.this.code;
				}

			};
		}

	}

}
