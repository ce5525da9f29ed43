package dev.polling.console;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the operator console ({@code polling.console.*}). The page itself is the actuator
 * endpoint {@code console}: its exposure ({@code management.endpoints.web.exposure.include}) and
 * access ({@code management.endpoint.console.access}) are set as for any endpoint.
 */
@ConfigurationProperties("polling.console")
public class ConsoleProperties {

	/**
	 * Whether the console offers actions (pause, resume). Also needs
	 * management.endpoint.console.access=unrestricted; without both the page is read-only and action
	 * requests are refused.
	 */
	private boolean actionsEnabled;

	/**
	 * The role a user needs for actions (checked through the request's security context, e.g.
	 * Spring Security's roles without the ROLE_ prefix); none by default: then the actuator's access
	 * rules alone decide.
	 */
	private @Nullable String actionRole;

	/** How many entries the timeline of each cluster keeps (in memory, newest first). */
	private int timelineSize = 200;

	/** How long the timeline keeps an entry (counted from its last repeat); older entries are dropped. */
	private Duration timelineRetention = ConsoleTimeline.DEFAULT_RETENTION;

	/** How many entries a list of queue messages, deliveries or jobs shows per page (1 to 1000). */
	private int pageSize = 100;

	/** How long after it was stored an in-doubt delivery is an error in the problems panel (a warning before). */
	private Duration inDoubtAfter = Duration.ofMinutes(10);

	/** How long after its due time a scheduled job is overdue (the dispatcher is not running or not keeping up). */
	private Duration jobOverdueAfter = Duration.ofMinutes(1);

	/** How often an open page asks whether anything changed. */
	private Duration refreshInterval = Duration.ofSeconds(3);

	/**
	 * When peer error texts and decision details are shown unmasked: never, always or
	 * when-authorized (the user has one of the roles below).
	 */
	private Show showValues = Show.NEVER;

	/** The roles that see unmasked values when show-values is when-authorized. */
	private Set<String> roles = new HashSet<>();

	public boolean isActionsEnabled() {
		return this.actionsEnabled;
	}

	public void setActionsEnabled(boolean actionsEnabled) {
		this.actionsEnabled = actionsEnabled;
	}

	public @Nullable String getActionRole() {
		return this.actionRole;
	}

	public void setActionRole(@Nullable String actionRole) {
		this.actionRole = actionRole;
	}

	public int getTimelineSize() {
		return this.timelineSize;
	}

	public void setTimelineSize(int timelineSize) {
		if (timelineSize < 10 || timelineSize > 10_000) {
			throw new IllegalArgumentException("polling.console.timeline-size is " + timelineSize
					+ "; set it between 10 and 10000 (entries kept per cluster)");
		}
		this.timelineSize = timelineSize;
	}

	public Duration getTimelineRetention() {
		return this.timelineRetention;
	}

	public void setTimelineRetention(Duration timelineRetention) {
		if (timelineRetention.compareTo(Duration.ofMinutes(1)) < 0 || timelineRetention.compareTo(Duration.ofDays(7)) > 0) {
			throw new IllegalArgumentException("polling.console.timeline-retention is " + timelineRetention
					+ "; set it between 1m and 7d (how long the timeline keeps an entry)");
		}
		this.timelineRetention = timelineRetention;
	}

	public int getPageSize() {
		return this.pageSize;
	}

	public void setPageSize(int pageSize) {
		if (pageSize < 1 || pageSize > 1000) {
			throw new IllegalArgumentException("polling.console.page-size is " + pageSize + "; set it between 1 and 1000 (entries per page)");
		}
		this.pageSize = pageSize;
	}

	public Duration getInDoubtAfter() {
		return this.inDoubtAfter;
	}

	public void setInDoubtAfter(Duration inDoubtAfter) {
		if (inDoubtAfter.isNegative()) {
			throw new IllegalArgumentException("polling.console.in-doubt-after is " + inDoubtAfter
					+ "; set it to 0s or more (how long an in-doubt delivery may wait before it is an error)");
		}
		this.inDoubtAfter = inDoubtAfter;
	}

	public Duration getJobOverdueAfter() {
		return this.jobOverdueAfter;
	}

	public void setJobOverdueAfter(Duration jobOverdueAfter) {
		if (jobOverdueAfter.isNegative()) {
			throw new IllegalArgumentException("polling.console.job-overdue-after is " + jobOverdueAfter
					+ "; set it to 0s or more (how long after its due time a scheduled job is overdue)");
		}
		this.jobOverdueAfter = jobOverdueAfter;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		if (refreshInterval.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("polling.console.refresh-interval is " + refreshInterval
					+ "; set it to 1s or more (an open page asks this often whether anything changed)");
		}
		this.refreshInterval = refreshInterval;
	}

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

}
