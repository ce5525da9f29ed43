package dev.polling.boot.autoconfigure.actuate;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a state change sent to a polling endpoint whose access is read-only (the default) with a
 * 405 that says which property enables it, instead of Spring MVC's bare "Method Not Allowed": the
 * operator who sends {@code POST /actuator/polling/{cluster}} learns of
 * {@code management.endpoint.polling.access=unrestricted} from the answer. Only for the polling
 * endpoints, only when their access is not unrestricted; every other 405 is left to Spring MVC.
 */
final class ReadOnlyEndpointHint implements HandlerExceptionResolver, Ordered {

	/** The polling endpoints with write operations. */
	static final List<String> ENDPOINTS = List.of("polling", "pollingqueue", "pollingdelivery");

	private final ObjectProvider<PathMappedEndpoints> endpoints;

	private final Environment environment;

	ReadOnlyEndpointHint(ObjectProvider<PathMappedEndpoints> endpoints, Environment environment) {
		this.endpoints = endpoints;
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		// before Spring MVC's own resolvers (order 0), after Boot's error attributes (which only record the exception)
		return Ordered.HIGHEST_PRECEDENCE + 100;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, @Nullable Object handler,
			Exception ex) {
		if (!(ex instanceof HttpRequestMethodNotSupportedException unsupported)) {
			return null;
		}
		String id = endpointOf(request);
		if (id == null) {
			return null;
		}
		Access access = access(id);
		if (access == Access.UNRESTRICTED) {
			return null;
		}
		String property = "management.endpoint." + id + ".access";
		String message = request.getMethod() + " on the " + id + " endpoint changes state, and its access is "
				+ access.name().toLowerCase(Locale.ROOT).replace('_', '-')
				+ ((access == Access.READ_ONLY) ? " (the default)" : "") + ". Set " + property
				+ "=unrestricted to allow it (and restrict who may call it, e.g. with Spring Security)"
				+ (capped(id) ? "; management.endpoints.access.max-permitted caps it too" : "") + ".";
		try {
			response.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
			String[] supported = unsupported.getSupportedMethods();
			if (supported != null) {
				response.setHeader("Allow", String.join(", ", supported));
			}
			response.setContentType("application/json");
			response.setCharacterEncoding("UTF-8");
			response.getWriter()
				.write("{\"status\":405,\"error\":\"Method Not Allowed\",\"path\":" + json(request.getRequestURI()) + ",\"property\":"
						+ json(property) + ",\"message\":" + json(message) + "}");
			return new ModelAndView();
		}
		catch (IOException writeFailed) {
			return null;
		}
	}

	/** The polling endpoint the request is for, or null. */
	private @Nullable String endpointOf(HttpServletRequest request) {
		PathMappedEndpoints mapped = this.endpoints.getIfAvailable();
		if (mapped == null) {
			return null;
		}
		String path = request.getRequestURI().substring(request.getContextPath().length());
		for (String id : ENDPOINTS) {
			String base = mapped.getPath(EndpointId.of(id));
			if (base != null && (path.equals(base) || path.startsWith(base + "/"))) {
				return id;
			}
		}
		return null;
	}

	/** The endpoint's access as Spring Boot resolves it from the properties (its default is read-only). */
	Access access(String id) {
		Binder binder = Binder.get(this.environment);
		Access access = binder.bind("management.endpoint." + id + ".access", Access.class)
			.orElseGet(() -> binder.bind("management.endpoints.access.default", Access.class).orElse(Access.READ_ONLY));
		return binder.bind("management.endpoints.access.max-permitted", Access.class).map(access::cap).orElse(access);
	}

	private boolean capped(String id) {
		Binder binder = Binder.get(this.environment);
		Access own = binder.bind("management.endpoint." + id + ".access", Access.class).orElse(null);
		return own == Access.UNRESTRICTED && access(id) != Access.UNRESTRICTED;
	}

	private static String json(String value) {
		StringBuilder out = new StringBuilder("\"");
		for (char c : value.toCharArray()) {
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				default -> {
					if (c < 0x20) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

}
