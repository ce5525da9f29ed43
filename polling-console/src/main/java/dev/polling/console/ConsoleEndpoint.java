package dev.polling.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.util.MimeType;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.core.ClusterStatus;
import dev.polling.core.Decision;
import dev.polling.core.PeerDefinition;
import dev.polling.core.PeerObservation;
import dev.polling.core.PollingManager;

/**
 * The operator console: one page under the actuator's base path ({@code /actuator/console}) with its
 * style sheet and script ({@code /actuator/console/assets/...}), the page's data
 * ({@code /actuator/console/api/state}) and the cheap question whether anything changed
 * ({@code /actuator/console/api/changes}). The actions ({@code POST /actuator/console/clusters/{id}}
 * with {@code {"action":"pause"}}, {@code {"action":"resume"}} or {@code {"action":"hand-over"}}) go through the
 * {@link PollingManager}; they exist only with {@code management.endpoint.console.access=unrestricted}
 * (the actuator does not map them otherwise) and are refused (403) unless
 * {@code polling.console.actions-enabled=true} and, when {@code polling.console.action-role} is set,
 * the user has that role. Each action is logged with the authenticated principal.
 */
@WebEndpoint(id = "console", defaultAccess = Access.READ_ONLY)
public class ConsoleEndpoint {

	private static final Log logger = LogFactory.getLog(ConsoleEndpoint.class);

	static final MimeType HTML = MimeType.valueOf("text/html;charset=UTF-8");

	static final MimeType JSON = MimeType.valueOf("application/json");

	/** The files the page is made of: served by name from the jar, nothing else (no paths from the request). */
	private static final Map<String, MimeType> ASSETS = Map.of("console.css", MimeType.valueOf("text/css;charset=UTF-8"),
			"console.js", MimeType.valueOf("text/javascript;charset=UTF-8"));

	static final List<String> ACTIONS = List.of("pause", "resume", "hand-over");

	private static final int TIMELINE_SHOWN = 50;

	private final PollingManager manager;

	private final ConsoleTimeline timeline;

	private final ConsoleProperties properties;

	private final PollingValueSanitizer sanitizer;

	private final Clock clock;

	private final List<ConsoleSection> sections;

	private final List<ConsoleProblemSource> problemSources;

	/**
	 * Creates the endpoint.
	 * @param manager the polling manager whose clusters it shows and acts on
	 * @param timeline what happened to the clusters
	 * @param properties the console's settings
	 * @param sanitizer what it shows of error texts and decision details
	 * @param clock the time
	 * @param sections the database parts shown besides the clusters (work queue, delivery guard), if any
	 */
	public ConsoleEndpoint(PollingManager manager, ConsoleTimeline timeline, ConsoleProperties properties,
			PollingValueSanitizer sanitizer, Clock clock, List<ConsoleSection> sections) {
		this(manager, timeline, properties, sanitizer, clock, sections, List.of());
	}

	/**
	 * Creates the endpoint.
	 * @param manager the polling manager whose clusters it shows and acts on
	 * @param timeline what happened to the clusters
	 * @param properties the console's settings
	 * @param sanitizer what it shows of error texts and decision details
	 * @param clock the time
	 * @param sections the database parts shown besides the clusters (work queue, delivery guard), if any
	 * @param problemSources further problems (e.g. the schema version of polling's tables)
	 */
	public ConsoleEndpoint(PollingManager manager, ConsoleTimeline timeline, ConsoleProperties properties,
			PollingValueSanitizer sanitizer, Clock clock, List<ConsoleSection> sections, List<ConsoleProblemSource> problemSources) {
		this.problemSources = List.copyOf(problemSources);
		this.manager = manager;
		this.timeline = timeline;
		this.properties = properties;
		this.sanitizer = sanitizer;
		this.clock = clock;
		this.sections = List.copyOf(sections);
	}

	/** {@code GET /actuator/console}: the page. */
	@ReadOperation(produces = "text/html")
	public WebEndpointResponse<byte[]> page() {
		return new WebEndpointResponse<>(asset("index.html"), WebEndpointResponse.STATUS_OK, HTML);
	}

	/**
	 * {@code GET /actuator/console/assets/{file}}, {@code /actuator/console/api/state} and
	 * {@code /actuator/console/api/changes}; anything else is 404.
	 */
	@ReadOperation(produces = { "application/json", "text/css", "text/javascript", "text/html" })
	public WebEndpointResponse<Object> resource(SecurityContext securityContext, @Selector(match = Match.ALL_REMAINING) String[] path,
			@Nullable String state, @Nullable String group, @Nullable String key, @Nullable String after, @Nullable String limit) {
		if (path.length >= 3 && path.length <= 4 && path[0].equals("api") && path[2].equals("entries")) {
			ConsoleSection section = this.sections.stream().filter((s) -> s.kind().equals(path[1])).findFirst().orElse(null);
			if (section == null) {
				return new WebEndpointResponse<>(new Refusal("Unknown kind '" + path[1] + "'; lists exist for "
						+ sectionKinds(), path[1], sectionKinds()), WebEndpointResponse.STATUS_NOT_FOUND,
						JSON);
			}
			return (path.length == 3) ? page(section, securityContext, state, group, key, after, limit)
					: detail(section, securityContext, path[3]);
		}
		if (path.length == 2 && path[0].equals("assets") && ASSETS.containsKey(path[1])) {
			return new WebEndpointResponse<>(asset(path[1]), WebEndpointResponse.STATUS_OK, ASSETS.get(path[1]));
		}
		if (path.length == 2 && path[0].equals("api") && path[1].equals("state")) {
			return new WebEndpointResponse<>(state(securityContext), WebEndpointResponse.STATUS_OK, JSON);
		}
		if (path.length == 2 && path[0].equals("api") && path[1].equals("changes")) {
			return new WebEndpointResponse<>(changes(), WebEndpointResponse.STATUS_OK, JSON);
		}
		return new WebEndpointResponse<>(new Refusal("Not found: '" + String.join("/", path)
				+ "'; the console serves assets/console.css, assets/console.js, api/state, api/changes, api/{kind}/entries "
				+ "and api/{kind}/entries/{id}", null, List.of()), WebEndpointResponse.STATUS_NOT_FOUND, JSON);
	}

	private WebEndpointResponse<Object> page(ConsoleSection section, SecurityContext securityContext, @Nullable String state,
			@Nullable String group, @Nullable String key, @Nullable String after, @Nullable String limit) {
		Long afterId = (after == null || after.isBlank()) ? Long.valueOf(0) : parseLong(after);
		Long size = (limit == null || limit.isBlank()) ? Long.valueOf(this.properties.getPageSize()) : parseLong(limit);
		if (afterId == null || afterId < 0) {
			return badRequest("after must be the id of the last entry of the previous page (0 or more), was '" + after + "'", after);
		}
		if (size == null || size < 1 || size > 1000) {
			return badRequest("limit must be 1 to 1000, was '" + limit + "'", limit);
		}
		if (state == null || state.isBlank()) {
			return badRequest("state is missing: name the state to list (e.g. state=DEAD)", state);
		}
		try {
			return new WebEndpointResponse<>(section.entries(state, group, key, afterId, size.intValue(), this.sanitizer.isShown(securityContext)),
					WebEndpointResponse.STATUS_OK, JSON);
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage(), state);
		}
	}

	private WebEndpointResponse<Object> detail(ConsoleSection section, SecurityContext securityContext, String id) {
		Long entryId = parseLong(id);
		if (entryId == null) {
			return badRequest("Id '" + id + "' is not a number", id);
		}
		return section.entry(entryId, this.sanitizer.isShown(securityContext))
			.<WebEndpointResponse<Object>>map((entry) -> new WebEndpointResponse<>(entry, WebEndpointResponse.STATUS_OK, JSON))
			.orElseGet(() -> new WebEndpointResponse<>(new Refusal("No " + section.kind() + " entry with id " + entryId
					+ " (purged, or never there)", id, List.of()), WebEndpointResponse.STATUS_NOT_FOUND, JSON));
	}

	private static WebEndpointResponse<Object> badRequest(String message, @Nullable String value) {
		return new WebEndpointResponse<>(new Refusal(message, value, List.of()), WebEndpointResponse.STATUS_BAD_REQUEST, JSON);
	}

	private static @Nullable Long parseLong(String text) {
		try {
			return Long.parseLong(text.strip());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * {@code POST /actuator/console/clusters/{id}} with {@code {"action":"pause"}} (stop polling it here:
	 * a peer takes over after the running cycle), {@code {"action":"resume"}} or
	 * {@code {"action":"hand-over"}} (let a peer take it after the running cycle without pausing: this
	 * instance holds back one wait time, then competes again; 409 unless it holds it). 403 when actions
	 * are disabled or the user lacks the action role, 404 for an unknown cluster, 400 for an unknown
	 * action, 409 when the cluster already is in the state asked for (nothing changes).
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(SecurityContext securityContext, @Selector String kind, @Selector String id, String action,
			@Nullable String group, @Nullable Long count) {
		String refusal = refusal(securityContext);
		if (refusal != null) {
			return new WebEndpointResponse<>(new Refusal(refusal, null, List.of()), 403, JSON);
		}
		ConsoleSection section = this.sections.stream().filter((s) -> s.kind().equals(kind)).findFirst().orElse(null);
		if (section != null && id.equals("bulk")) {
			if (group == null || group.isBlank() || count == null || count < 0) {
				return badRequest("A bulk action needs the group (queue or destination) and the count the operator confirmed "
						+ "(0 or more), e.g. {\"action\":\"retry-dead\",\"group\":\"invoices\",\"count\":3}", group);
			}
			return done(section.bulk(action, group, count), securityContext, action);
		}
		if (section != null) {
			return done(section.act(id, action), securityContext, action);
		}
		if (!kind.equals("clusters")) {
			return new WebEndpointResponse<>(new Refusal("Unknown kind '" + kind + "'; actions exist for " + kinds(), kind,
					kinds()), WebEndpointResponse.STATUS_NOT_FOUND, JSON);
		}
		if (!this.manager.clusterIds().contains(id)) {
			return new WebEndpointResponse<>(new Refusal("Unknown polling cluster '" + id + "'", id, List.copyOf(this.manager.clusterIds())),
					WebEndpointResponse.STATUS_NOT_FOUND, JSON);
		}
		if (!ACTIONS.contains(action)) {
			return new WebEndpointResponse<>(new Refusal("Unknown action '" + action + "' for cluster '" + id + "'", action, ACTIONS),
					WebEndpointResponse.STATUS_BAD_REQUEST, JSON);
		}
		if (action.equals("hand-over")) {
			return handOver(securityContext, id);
		}
		boolean paused = this.manager.isPaused(id);
		if (action.equals("pause") == paused) {
			return new WebEndpointResponse<>(new Refusal("Cluster '" + id + "' is already " + (paused ? "paused" : "active")
					+ " on this instance; nothing changed", action, List.of(paused ? "resume" : "pause")), 409, JSON);
		}
		String who = who(securityContext);
		boolean holding = this.manager.isHolding(id);
		if (action.equals("pause")) {
			this.manager.pause(id);
		}
		else {
			this.manager.resume(id);
		}
		String done = (action.equals("pause") ? "paused" : "resumed") + " by " + who + " through the console";
		logger.info("Polling console: cluster " + id + " " + done + " (this instance " + (holding ? "held" : "did not hold")
				+ " it)");
		this.timeline.action(id, done);
		return new WebEndpointResponse<>(cluster(this.manager.status(id), this.sanitizer.isShown(securityContext)),
				WebEndpointResponse.STATUS_OK, JSON);
	}

	private WebEndpointResponse<Object> handOver(SecurityContext securityContext, String id) {
		ClusterStatus status = this.manager.status(id);
		if (!status.holding() || status.handingOver()) {
			return new WebEndpointResponse<>(new Refusal("This instance " + (status.handingOver() ? "is already handing over" : "does not hold")
					+ " cluster '" + id + "'; nothing changed", "hand-over", List.of("pause")), 409, JSON);
		}
		try {
			this.manager.handOver(id);
		}
		catch (IllegalStateException ex) {
			return new WebEndpointResponse<>(new Refusal(ex.getMessage() + "; nothing changed", "hand-over", List.of("pause")), 409, JSON);
		}
		boolean afterCycle = this.manager.status(id).handingOver();
		String done = "handed over by " + who(securityContext) + " through the console";
		logger.info("Polling console: cluster " + id + " " + done + (afterCycle ? " (after the running cycle)" : "")
				+ "; this instance holds back for one wait time");
		this.timeline.action(id, done);
		return new WebEndpointResponse<>(cluster(this.manager.status(id), this.sanitizer.isShown(securityContext)),
				WebEndpointResponse.STATUS_OK, JSON);
	}

	private WebEndpointResponse<Object> done(ConsoleSection.Outcome outcome, SecurityContext securityContext, String action) {
		if (outcome.status() != WebEndpointResponse.STATUS_OK) {
			return new WebEndpointResponse<>(new Refusal(outcome.message(), action, outcome.valid()), outcome.status(), JSON);
		}
		String done = outcome.message() + " by " + who(securityContext) + " through the console";
		logger.info("Polling console: " + done);
		return new WebEndpointResponse<>(new Done(done), WebEndpointResponse.STATUS_OK, JSON);
	}

	private List<String> kinds() {
		List<String> kinds = new ArrayList<>();
		kinds.add("clusters");
		kinds.addAll(sectionKinds());
		return kinds;
	}

	/** The kinds of the sections (the lists and their actions). */
	private List<String> sectionKinds() {
		return this.sections.stream().map(ConsoleSection::kind).toList();
	}

	/** Why this request may not act, or null when it may. */
	private @Nullable String refusal(SecurityContext securityContext) {
		if (!this.properties.isActionsEnabled()) {
			return "Actions are disabled: the console is read-only. Set polling.console.actions-enabled=true (with "
					+ "management.endpoint.console.access=unrestricted) to enable them";
		}
		String role = this.properties.getActionRole();
		if (role != null && !role.isBlank() && !securityContext.isUserInRole(role)) {
			return "Actions need the role '" + role + "' (polling.console.action-role); " + who(securityContext) + " does not have it";
		}
		return null;
	}

	private static String who(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? "'" + principal.getName() + "'" : "an anonymous user (no authenticated principal)";
	}

	Changes changes() {
		StringBuilder fingerprint = new StringBuilder();
		for (ClusterStatus status : this.manager.statuses()) {
			Decision decision = status.lastDecision();
			fingerprint.append(status.definition().id()).append(status.holding()).append(status.paused())
				.append(status.handingOver()).append(status.cycleOverrunning())
				.append((decision != null) ? decision.reason() : "-");
		}
		for (ConsoleSection section : this.sections) {
			try {
				fingerprint.append(section.fingerprint());
			}
			catch (RuntimeException ex) {
				fingerprint.append(section.kind()).append(" unavailable");
			}
		}
		return new Changes(this.timeline.version() + "-" + Integer.toHexString(fingerprint.toString().hashCode()),
				this.properties.getRefreshInterval().toMillis());
	}

	State state(SecurityContext securityContext) {
		boolean shown = this.sanitizer.isShown(securityContext);
		Instant now = this.clock.instant();
		List<ClusterView> clusters = new ArrayList<>();
		List<ConsoleProblems.Problem> problems = new ArrayList<>();
		for (ClusterStatus status : this.manager.statuses()) {
			ClusterView view = cluster(status, shown);
			clusters.add(view);
			problems.addAll(ConsoleProblems.of(status, now, this.timeline.startedAt(),
					(view.lastDecision() != null) ? view.lastDecision().detail() : null));
		}
		List<ConsoleSection.View> views = new ArrayList<>();
		for (ConsoleSection section : this.sections) {
			try {
				ConsoleSection.View view = section.view(shown);
				views.add(view);
				problems.addAll(section.problems(view));
			}
			catch (RuntimeException ex) {
				// the database is down or the table missing: the clusters are still shown
				problems.add(new ConsoleProblems.Problem("error", section.kind(), "section-unavailable",
						"Could not read the " + section.kind() + ": " + this.sanitizer.sanitize("detail", ex.getMessage(), shown),
						"Check the database connection and the schema (see the application's log and /actuator/health)."));
			}
		}
		for (ConsoleProblemSource source : this.problemSources) {
			try {
				problems.addAll(source.problems());
			}
			catch (RuntimeException ex) {
				// a broken source must not hide the page
				logger.debug("Polling console: a problem source failed", ex);
			}
		}
		String refusal = refusal(securityContext);
		return new State(this.manager.settings().instanceId(), this.manager.isStandalone(), now.toString(),
				this.timeline.startedAt().toString(), changes().version(), this.properties.getRefreshInterval().toMillis(),
				this.timeline.retention().toMillis(),
				new Actions(this.properties.isActionsEnabled(), refusal == null, refusal), clusters, problems, views);
	}

	private ClusterView cluster(ClusterStatus status, boolean shown) {
		String id = status.definition().id();
		Duration waitTime = status.definition().waitTime();
		Decision decision = status.lastDecision();
		Map<String, PeerObservation> observations = new LinkedHashMap<>();
		if (decision != null) {
			decision.peers().forEach((o) -> observations.put(o.peerId(), o));
		}
		status.peers().forEach((o) -> observations.putIfAbsent(o.peerId(), o));
		List<PeerView> peers = new ArrayList<>();
		for (String peerId : status.peerIds()) {
			PeerDefinition definition = this.manager.peers().get(peerId);
			PeerObservation o = observations.remove(peerId);
			peers.add(peer(peerId, (definition != null) ? definition.address() : (o != null) ? o.address() : "", o, waitTime, shown));
		}
		for (PeerObservation o : observations.values()) { // the coordinator of a database- or lease-coordinated cluster
			peers.add(peer(o.peerId(), o.address(), o, waitTime, shown));
		}
		OptionalLong fencing = this.manager.fencingToken(id);
		PeerObservation coordinator = (decision != null)
				? decision.peers().stream().filter((o) -> o.peerId().equals("coordinator")).findFirst().orElse(null) : null;
		String coordination = (coordinator != null || fencing.isPresent()) ? "coordinator"
				: status.peerIds().isEmpty() ? "standalone" : "jmx-peers";
		String holderKind;
		String holderId;
		Long holderElapsed;
		if (status.holding()) {
			holderKind = "this-instance";
			holderId = this.manager.settings().instanceId();
			holderElapsed = (status.elapsed() != null) ? status.elapsed().toMillis() : null;
		}
		else {
			PeerObservation holder = (decision != null)
					? decision.peers().stream().filter((o) -> o.isHolding(waitTime)).findFirst().orElse(null) : null;
			holderKind = (holder != null) ? "peer" : "unknown";
			holderId = (holder != null) ? holder.instanceId() : null;
			holderElapsed = (holder != null) ? holder.elapsedMillis() : null;
		}
		Instant since = this.timeline.holderSince(id);
		DecisionView decisionView = (decision != null) ? new DecisionView(lower(decision.outcome()), lower(decision.reason()),
				decision.decidedAt().toString(), this.sanitizer.sanitize("detail", decision.detail(), shown)) : null;
		List<TimelineView> entries = this.timeline.entries(id, TIMELINE_SHOWN)
			.stream()
			.map((e) -> new TimelineView(e.at().toString(), e.kind(), e.text(), this.sanitizer.sanitize("detail", e.detail(), shown),
					e.repeats(), e.lastAt().toString()))
			.toList();
		return new ClusterView(id, status.definition().name(), waitTime.toMillis(), coordination,
				(coordinator != null) ? coordinator.address() : null, fencing.isPresent() ? fencing.getAsLong() : null,
				status.holding(), new Holder(holderKind, holderId, (since != null) ? since.toString() : null, holderElapsed),
				status.paused(), status.handingOver(), status.cycleRunning(),
				(status.cycleRunningFor() != null) ? status.cycleRunningFor().toMillis() : null, status.cycleOverrunning(),
				decisionView, whyNotMe(status, holderId), peers, entries);
	}

	private PeerView peer(String id, String address, @Nullable PeerObservation o, Duration waitTime, boolean shown) {
		if (o == null) {
			return new PeerView(id, address, "not-asked-yet", null, null, null, false, null);
		}
		return new PeerView(id, address, lower(o.state()), (o.fault() != dev.polling.core.PeerFault.NONE) ? lower(o.fault()) : null,
				o.instanceId(), (o.elapsedMillis() == PeerObservation.NEVER) ? null : o.elapsedMillis(), o.isHolding(waitTime),
				this.sanitizer.sanitize("detail", o.detail(), shown));
	}

	/** Why this instance does not poll the cluster, in words; null while it holds it. */
	static @Nullable String whyNotMe(ClusterStatus status, @Nullable String holderId) {
		if (status.holding()) {
			return status.handingOver() ? "This instance holds the cluster until its running cycle ends, then hands it over." : null;
		}
		Decision decision = status.lastDecision();
		if (decision == null) {
			return "No decision yet on this instance.";
		}
		String holder = (holderId != null) ? "'" + holderId + "'" : "a peer";
		return switch (decision.reason()) {
			case PEER_ACTIVE -> "Instance " + holder + " holds it: it answered with an activity younger than the wait time.";
			case PEER_PRESUMED_ACTIVE -> "A peer that held it last does not answer; it is presumed to still poll until its wait time passes.";
			case PEER_CANDIDATE -> "A peer with precedence is acquiring it.";
			case YIELDED_TO_PEER -> "This instance found a peer with precedence holding it too and let go.";
			case HANDED_OVER -> "This instance handed it over (to balance the clusters, or an operator asked) and holds back for one wait time.";
			case LEFT_TO_LIGHTER_PEER -> "It is free, but left to a peer holding fewer clusters for a few decisions.";
			case PAUSED -> "It is paused on this instance (resume to compete again).";
			case LOCAL_CYCLE_RUNNING -> "A cycle of it is still running here.";
			case DECISION_TOO_SLOW -> "The last decision took too long (a pause of the JVM?); it asks again at the next tick.";
			case STOPPED -> "This JVM did not run for a while (stopped or suspended); it waits three peer timeouts before acquiring.";
			case RELEASED -> "It was released, paused or closed while the decision ran.";
			case SETTINGS_MISMATCH -> "A peer publishes other settings (wait time, settle time, peer timeout): a rolling configuration change. "
					+ "This instance does not acquire while it sees one; the holder keeps the cluster.";
			case PEER_MISCONFIGURED -> "A configured peer has a configuration fault; whether it polls is unknown, so this instance waits.";
			case DUPLICATE_INSTANCE_ID -> "A peer answers with this instance's id; two instances share one id.";
			case DISCOVERY_PENDING -> "Peers come from DNS and this instance's address is not known to all of them yet.";
			case COORDINATION_UNAVAILABLE -> "The coordinator (database or lease) could not decide.";
			case INTERRUPTED -> "The deciding thread was interrupted.";
			case CLOSED -> "The application is shutting down.";
			default -> (decision.isGranted()) ? "It was granted at the last decision; the hold ended since."
					: "Refused: " + lower(decision.reason()) + ".";
		};
	}

	private static byte[] asset(String name) {
		try (InputStream in = ConsoleEndpoint.class.getResourceAsStream("static/" + name)) {
			if (in == null) {
				throw new IllegalStateException("The console's " + name + " is missing from the jar (dev/polling/console/static/)");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String lower(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** The answer to the "has anything changed" question. */
	public record Changes(String version, long refreshMillis) implements OperationResponseBody {
	}

	/** Whether this user may act, and if not, why. */
	public record Actions(boolean enabled, boolean allowed, @Nullable String refusal) {
	}

	/** Everything the page shows. */
	public record State(String instanceId, boolean standalone, String asOf, String startedAt, String version, long refreshMillis,
			long timelineRetentionMillis, Actions actions, List<ClusterView> clusters, List<ConsoleProblems.Problem> problems, List<ConsoleSection.View> sections)
			implements OperationResponseBody {
	}

	/** Who holds a cluster as this instance sees it. */
	public record Holder(String kind, @Nullable String instanceId, @Nullable String since, @Nullable Long elapsedMillis) {
	}

	/** One cluster. */
	public record ClusterView(String id, String name, long waitTimeMillis, String coordination, @Nullable String coordinator,
			@Nullable Long fencingToken, boolean holding, Holder holder, boolean paused, boolean handingOver, boolean cycleRunning,
			@Nullable Long cycleRunningMillis, boolean cycleOverrunning, @Nullable DecisionView lastDecision,
			@Nullable String whyNotMe, List<PeerView> peers, List<TimelineView> timeline) implements OperationResponseBody {
	}

	/** The last decision. */
	public record DecisionView(String outcome, String reason, String decidedAt, @Nullable String detail) {
	}

	/** A peer as the last decision saw it. */
	public record PeerView(String id, String address, String state, @Nullable String fault, @Nullable String instanceId,
			@Nullable Long elapsedMillis, boolean holding, @Nullable String detail) {
	}

	/** A timeline entry. */
	public record TimelineView(String at, String kind, String text, @Nullable String detail, int repeats, String lastAt) {
	}

	/** A done action on a queue message or a delivery. */
	public record Done(String done) implements OperationResponseBody {
	}

	/** A refused request: what was wrong, the value given and the valid ones. */
	public record Refusal(String error, @Nullable String value, List<String> valid) implements OperationResponseBody {
	}

}
