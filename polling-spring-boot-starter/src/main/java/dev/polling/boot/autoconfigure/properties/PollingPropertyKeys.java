package dev.polling.boot.autoconfigure.properties;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.ResolvableType;


/**
 * The keys under {@code polling.*} that the starter binds, read from the properties classes the
 * binder fills ({@link PollingProperties}, {@code PollingJdbcProperties} under {@code polling.jdbc}, and
 * {@code ConsoleProperties} of the polling-console module under {@code polling.console} when it is on the classpath),
 * so that a key nobody reads can be reported with the nearest known one. Map keys (cluster and peer
 * ids) are free; the keys below them are checked.
 */
final class PollingPropertyKeys {

	private static final PollingPropertyKeys INSTANCE = new PollingPropertyKeys();

	private final Node root;

	private PollingPropertyKeys() {
		Node polling = bean(PollingProperties.class);
		polling.children.put("jdbc", new Child("jdbc", jdbc()));
		Node console = console();
		if (console != null) {
			polling.children.put("console", new Child("console", console));
		}
		this.root = polling;
	}

	/**
	 * The JDBC keys, or any key when the JDBC parts' classes are not on the classpath (then nothing
	 * reads them). Looked up by name: the JDBC auto-configuration's package depends on this one, not
	 * the other way round.
	 */
	private static Node jdbc() {
		try {
			return bean(Class.forName(JDBC_PROPERTIES, false, PollingPropertyKeys.class.getClassLoader()));
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return new Node(Kind.ANY, null, null, false);
		}
	}

	/** The console's keys, or null without the polling-console module (then nothing reads them: they are reported). */
	private static @Nullable Node console() {
		try {
			return bean(Class.forName(CONSOLE_PROPERTIES, false, PollingPropertyKeys.class.getClassLoader()));
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private static final String CONSOLE_PROPERTIES = "dev.polling.console.ConsoleProperties";

	private static final String JDBC_PROPERTIES = "dev.polling.boot.autoconfigure.properties.PollingJdbcProperties";

	static PollingPropertyKeys get() {
		return INSTANCE;
	}

	/**
	 * Checks one name under {@code polling}.
	 * @param name the name, as a property source has it
	 * @return null when the starter binds it, else what is wrong and the nearest known key
	 */
	@Nullable Unknown check(ConfigurationPropertyName name) {
		Node node = this.root;
		for (int i = 1; i < name.getNumberOfElements(); i++) {
			switch (node.kind) {
				case ANY -> {
					return null;
				}
				case MAP -> {
					node = node.value;
					if (i < name.getNumberOfElements() - 1) {
						Unknown dotted = dottedMapKey(name, i, node);
						if (dotted != null) {
							return dotted;
						}
					}
				}
				case LEAF -> {
					if (node.indexed && name.isNumericIndex(i) && i == name.getNumberOfElements() - 1) {
						return null;
					}
					return new Unknown(name, i, written(name, i - 1) + " has no keys below it", written(name, i - 1));
				}
				case BEAN -> {
					Child child = node.children.get(uniform(name.getElement(i, Form.UNIFORM)));
					if (child == null) {
						return new Unknown(name, i, null, nearest(name, i, node));
					}
					node = child.node;
				}
			}
		}
		return null;
	}

	/**
	 * A map key written with dots but without brackets ({@code polling.clusters.orders.mail.wait-time}):
	 * the binder reads the map key as {@code orders} and the rest as unknown keys below it. When the
	 * element after the map key is not a known key but the elements after a longer, dotted map key
	 * are, that is what was meant.
	 * @param name the name
	 * @param index the element of the map key
	 * @param value the node of the map's values
	 * @return the dotted map key with its bracket notation, or null
	 */
	private @Nullable Unknown dottedMapKey(ConfigurationPropertyName name, int index, Node value) {
		if (value.kind != Kind.BEAN || isKnownBelow(value, name, index + 1)) {
			return null;
		}
		for (int end = index + 1; end < name.getNumberOfElements() - 1; end++) {
			if (isKnownBelow(value, name, end + 1)) {
				StringBuilder id = new StringBuilder();
				for (int i = index; i <= end; i++) {
					id.append((i > index) ? "." : "").append(name.getElement(i, Form.ORIGINAL));
				}
				StringBuilder bracketed = new StringBuilder(written(name, index - 1)).append('[').append(id).append(']');
				for (int i = end + 1; i < name.getNumberOfElements(); i++) {
					bracketed.append(element(name, i));
				}
				String map = name.getElement(index - 1, Form.ORIGINAL);
				String kind = map.equals("clusters") ? "cluster" : map.equals("peers") ? "peer" : "map";
				StringBuilder rest = new StringBuilder();
				for (int i = index + 1; i < name.getNumberOfElements(); i++) {
					rest.append((i > index + 1) ? "." : "").append(name.getElement(i, Form.ORIGINAL));
				}
				return new Unknown(name, index + 1, "the " + kind + " id '" + id + "' has dots: outside brackets Spring Boot reads "
						+ kind + " '" + name.getElement(index, Form.ORIGINAL) + "' with the unknown key '" + rest + "'",
						bracketed.toString(), id.toString(), kind);
			}
		}
		return null;
	}

	/** Whether the elements from {@code from} are a key that the node binds. */
	private static boolean isKnownBelow(Node start, ConfigurationPropertyName name, int from) {
		Node node = start;
		for (int i = from; i < name.getNumberOfElements(); i++) {
			switch (node.kind) {
				case ANY -> {
					return true;
				}
				case MAP -> node = node.value;
				case LEAF -> {
					return node.indexed && name.isNumericIndex(i) && i == name.getNumberOfElements() - 1;
				}
				case BEAN -> {
					Child child = node.children.get(uniform(name.getElement(i, Form.UNIFORM)));
					if (child == null) {
						return false;
					}
					node = child.node;
				}
			}
		}
		return node.kind != Kind.BEAN;
	}

	/**
	 * The key pattern of a name that the starter binds to a value of the given type, map keys
	 * written as {@code <id>} ({@code polling.clusters.<id>.wait-time}), or null.
	 * @param name the name, as a property source has it
	 * @param type the type of the value
	 * @return the pattern, or null when the name is not a key of that type
	 */
	@Nullable String patternOfType(ConfigurationPropertyName name, Class<?> type) {
		Node node = this.root;
		StringBuilder pattern = new StringBuilder("polling");
		for (int i = 1; i < name.getNumberOfElements(); i++) {
			switch (node.kind) {
				case MAP -> {
					node = node.value;
					pattern.append(".<id>");
				}
				case BEAN -> {
					Child child = node.children.get(uniform(name.getElement(i, Form.UNIFORM)));
					if (child == null) {
						return null;
					}
					node = child.node;
					pattern.append('.').append(child.name);
				}
				default -> {
					return null;
				}
			}
		}
		return (node.kind == Kind.LEAF && !node.indexed && type.equals(node.type)) ? pattern.toString() : null;
	}

	/** Every leaf key of a given type, map keys written as {@code <id>}: for tests of the unit rule. */
	List<String> keysOfType(Class<?> type) {
		List<String> keys = new ArrayList<>();
		collect("polling", this.root, type, keys);
		return keys;
	}

	private static void collect(String prefix, Node node, Class<?> type, List<String> keys) {
		switch (node.kind) {
			case ANY -> {
			}
			case MAP -> collect(prefix + ".<id>", node.value, type, keys);
			case LEAF -> {
				if (type.equals(node.type)) {
					keys.add(prefix);
				}
			}
			case BEAN -> node.children.values().forEach((child) -> collect(prefix + "." + child.name, child.node, type, keys));
		}
	}

	/** The name with the element at {@code index} replaced by the nearest known key, or null when none is near. */
	private static @Nullable String nearest(ConfigurationPropertyName name, int index, Node node) {
		String written = name.getElement(index, Form.DASHED);
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (Child child : node.children.values()) {
			int distance = distance(written, child.name);
			if (distance < bestDistance) {
				best = child.name;
				bestDistance = distance;
			}
		}
		if (best == null || bestDistance > Math.max(2, best.length() / 3)) {
			return null;
		}
		StringBuilder suggestion = new StringBuilder(written(name, index - 1)).append('.').append(best);
		for (int i = index + 1; i < name.getNumberOfElements(); i++) {
			suggestion.append(element(name, i));
		}
		return suggestion.toString();
	}

	/** The known keys directly below the element before {@code index}, for a message. */
	List<String> siblings(ConfigurationPropertyName name, int index) {
		Node node = this.root;
		for (int i = 1; i < index; i++) {
			node = switch (node.kind) {
				case ANY -> node;
				case MAP -> node.value;
				case BEAN -> node.children.get(uniform(name.getElement(i, Form.UNIFORM))).node;
				case LEAF -> node;
			};
		}
		return (node.kind == Kind.BEAN) ? node.children.values().stream().map((child) -> child.name).toList() : List.of();
	}

	/** The elements up to {@code last} as the user wrote them. */
	static String written(ConfigurationPropertyName name, int last) {
		StringBuilder written = new StringBuilder(name.getElement(0, Form.ORIGINAL));
		for (int i = 1; i <= last; i++) {
			written.append(element(name, i));
		}
		return written.toString();
	}

	private static String element(ConfigurationPropertyName name, int i) {
		String element = name.getElement(i, Form.ORIGINAL);
		if (name.isNumericIndex(i)) {
			return "[" + element + "]";
		}
		return isPlainKey(element) ? "." + element : ".[" + element + "]";
	}

	/** Whether a map key survives without brackets: letters, digits, '-' and '_'. */
	static boolean isPlainKey(String key) {
		return key.chars().allMatch((ch) -> (ch < 128 && Character.isLetterOrDigit(ch)) || ch == '-' || ch == '_');
	}

	private static String uniform(String element) {
		StringBuilder uniform = new StringBuilder();
		for (char ch : element.toLowerCase(Locale.ROOT).toCharArray()) {
			if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
				uniform.append(ch);
			}
		}
		return uniform.toString();
	}

	/** Levenshtein distance. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	// ---------------------------------------------------------------- the model

	private enum Kind {

		BEAN, MAP, LEAF, ANY

	}

	private record Child(String name, Node node) {
	}

	private static final class Node {

		final Kind kind;

		final Map<String, Child> children = new LinkedHashMap<>();

		final @Nullable Node value;

		final @Nullable Class<?> type;

		final boolean indexed;

		private Node(Kind kind, @Nullable Node value, @Nullable Class<?> type, boolean indexed) {
			this.kind = kind;
			this.value = value;
			this.type = type;
			this.indexed = indexed;
		}

	}

	private static Node bean(Class<?> type) {
		Node node = new Node(Kind.BEAN, null, null, false);
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			Method getter = property.getReadMethod();
			if (getter == null || getter.getDeclaringClass() == Object.class) {
				continue;
			}
			Node child = node(ResolvableType.forMethodReturnType(getter));
			if (property.getWriteMethod() != null || child.kind != Kind.LEAF || child.indexed) {
				String name = dashed(property.getName());
				node.children.put(uniform(name), new Child(name, child));
			}
		}
		return node;
	}

	private static Node node(ResolvableType type) {
		Class<?> resolved = type.resolve(Object.class);
		if (Map.class.isAssignableFrom(resolved)) {
			return new Node(Kind.MAP, node(type.asMap().getGeneric(1)), null, false);
		}
		if (Collection.class.isAssignableFrom(resolved) || resolved.isArray()) {
			return new Node(Kind.LEAF, null, resolved, true);
		}
		if (isPropertiesBean(resolved)) {
			return bean(resolved);
		}
		return new Node(Kind.LEAF, null, resolved, false);
	}

	/** A nested properties class of the starter (not an enum, not a JDK or core type). */
	private static boolean isPropertiesBean(Class<?> type) {
		return !type.isEnum() && type.getName().startsWith("dev.polling.boot.");
	}

	private static String dashed(String camel) {
		StringBuilder dashed = new StringBuilder();
		for (char ch : camel.toCharArray()) {
			if (Character.isUpperCase(ch)) {
				dashed.append('-').append(Character.toLowerCase(ch));
			}
			else {
				dashed.append(ch);
			}
		}
		return dashed.toString();
	}

	/**
	 * A key the starter does not bind.
	 * @param name the name as found
	 * @param index the first element that is not known
	 * @param problem what is wrong, or null for a plain unknown key
	 * @param suggestion the nearest known key, or null when none is near
	 * @param dottedId the map key as meant when it was written with dots but without brackets, else null
	 * @param dottedKind what the dotted map key names (cluster, peer), or null
	 */
	record Unknown(ConfigurationPropertyName name, int index, @Nullable String problem, @Nullable String suggestion,
			@Nullable String dottedId, @Nullable String dottedKind) {

		Unknown(ConfigurationPropertyName name, int index, @Nullable String problem, @Nullable String suggestion) {
			this(name, index, problem, suggestion, null, null);
		}

	}

}
