package dev.polling.core.jmx;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectInstance;
import javax.management.ObjectName;
import javax.management.QueryExp;
import javax.management.remote.MBeanServerForwarder;

import org.jspecify.annotations.Nullable;

/**
 * What remote clients of the polling JMX server reach instead of its MBean server: a read-only view
 * of the MBeans of the readable domains.
 *
 * <p>Answered: {@code getAttribute(s)}, {@code getMBeanInfo}, {@code getObjectInstance},
 * {@code isInstanceOf} and {@code isRegistered} for MBeans of a readable domain; an MBean of any
 * other domain is invisible, whether it exists or not ({@link InstanceNotFoundException},
 * {@code false}). {@code queryNames}, {@code queryMBeans}, {@code getMBeanCount} and
 * {@code getDomains} count only visible MBeans (a query expression is evaluated on them only).
 * {@code getDefaultDomain} is answered (the JDK client's connection check asks for it), and so is
 * {@code getClassLoaderRepository}, which the connector asks for when it opens a connection (no
 * remote call reaches it).
 *
 * <p>Everything else throws a {@link SecurityException}: creating, registering and unregistering
 * MBeans, setting attributes, invoking operations, notification listeners, {@code instantiate},
 * {@code deserialize} and the class loaders, including methods a later JDK adds to
 * {@link MBeanServer}.
 */
final class ReadOnlyForwarder implements InvocationHandler {

	private final Set<String> readableDomains;

	private volatile @Nullable MBeanServer target;

	private ReadOnlyForwarder(Set<String> readableDomains) {
		this.readableDomains = Collections.unmodifiableSortedSet(new TreeSet<>(readableDomains));
	}

	/** A forwarder that shows remote clients only the MBeans of the given domains, read-only. */
	static MBeanServerForwarder create(Set<String> readableDomains) {
		return (MBeanServerForwarder) Proxy.newProxyInstance(MBeanServerForwarder.class.getClassLoader(),
				new Class<?>[] { MBeanServerForwarder.class }, new ReadOnlyForwarder(readableDomains));
	}

	@Override
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
		String operation = method.getName();
		if (method.getDeclaringClass() == Object.class) {
			return switch (operation) {
				case "equals" -> proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "read-only view of the MBeans of " + this.readableDomains;
			};
		}
		switch (operation) {
			case "setMBeanServer":
				this.target = Objects.requireNonNull((MBeanServer) args[0], "MBean server must not be null");
				return null;
			case "getMBeanServer":
				return this.target;
			case "getDefaultDomain", "getClassLoaderRepository":
				return forward(method, args);
			case "getAttribute", "getAttributes", "getMBeanInfo", "getObjectInstance", "isInstanceOf":
				ObjectName name = (ObjectName) args[0];
				if (!isReadable(name)) {
					throw new InstanceNotFoundException(name + " (remote clients of the polling JMX server see only the MBeans of "
							+ this.readableDomains + ")");
				}
				return forward(method, args);
			case "isRegistered":
				return isReadable((ObjectName) args[0]) && target().isRegistered((ObjectName) args[0]);
			case "queryNames":
				return visibleNames((ObjectName) args[0], (QueryExp) args[1]);
			case "queryMBeans":
				return visibleMBeans((ObjectName) args[0], (QueryExp) args[1]);
			case "getMBeanCount":
				return visibleNames(null, null).size();
			case "getDomains":
				return Arrays.stream(target().getDomains()).filter(this.readableDomains::contains).toArray(String[]::new);
			default:
				throw refused(operation);
		}
	}

	private boolean isReadable(@Nullable ObjectName name) {
		return name != null && !name.isDomainPattern() && this.readableDomains.contains(name.getDomain());
	}

	/** The visible names that match the pattern, the query evaluated on visible MBeans only. */
	private Set<ObjectName> visibleNames(@Nullable ObjectName pattern, @Nullable QueryExp query) {
		Set<ObjectName> visible = new HashSet<>();
		for (ObjectName name : target().queryNames(pattern, null)) {
			if (isReadable(name) && (query == null || !target().queryNames(name, query).isEmpty())) {
				visible.add(name);
			}
		}
		return visible;
	}

	private Set<ObjectInstance> visibleMBeans(@Nullable ObjectName pattern, @Nullable QueryExp query) {
		Set<ObjectInstance> visible = new HashSet<>();
		for (ObjectName name : visibleNames(pattern, query)) {
			try {
				visible.add(target().getObjectInstance(name));
			}
			catch (InstanceNotFoundException ex) {
				// unregistered in the meantime
			}
		}
		return visible;
	}

	private @Nullable Object forward(Method method, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(target(), args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private MBeanServer target() {
		MBeanServer server = this.target;
		if (server == null) {
			throw new IllegalStateException("The read-only forwarder has no MBean server yet");
		}
		return server;
	}

	/**
	 * The refusal. The connector asks for {@code getClassLoaderFor} before a {@code setAttribute(s)},
	 * {@code invoke} or listener call reaches the forwarder (to unpack its arguments), and for
	 * {@code getClassLoader} before a {@code createMBean} with a class loader: the message names
	 * those calls, as the client made them.
	 */
	private SecurityException refused(String operation) {
		String what = switch (operation) {
			case "getClassLoaderFor" -> "setAttribute, setAttributes, invoke and notification listeners are refused (getClassLoaderFor)";
			case "getClassLoader" -> "createMBean is refused (getClassLoader)";
			default -> operation + " is refused";
		};
		return new SecurityException(
				"The polling JMX server is read-only: " + what + "; remote clients may only read the MBeans of " + this.readableDomains);
	}

}
