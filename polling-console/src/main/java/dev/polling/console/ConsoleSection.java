package dev.polling.console;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * A part of the application the console shows besides the clusters (the work queue, the delivery
 * guard): its counts by state, the lists an operator acts on, its problems and its actions, which
 * go through the part's admin API. Implementations are beans; the console finds them by type.
 */
public interface ConsoleSection {

	/** The path segment of its actions ({@code POST /actuator/console/{kind}/{id}}), e.g. {@code messages}. */
	String kind();

	/**
	 * What the page shows of it now.
	 * @param shown whether error texts may be shown unmasked
	 */
	View view(boolean shown);

	/** The problems in a view, each with what to do. */
	List<ConsoleProblems.Problem> problems(View view);

	/** A short text that changes when the counts change (for the "has anything changed" question). */
	String fingerprint();

	/**
	 * One page of entries in a state, oldest first, after a keyset cursor (never more than one page
	 * is read).
	 * @param state the state listed (one of the view's lists)
	 * @param group the queue or destination to list only, or null for all
	 * @param key the business key or idempotency key to list only, or null for all
	 * @param afterId list entries with a greater id (0 for the first page)
	 * @param limit the most entries, 1 to 1000
	 * @param shown whether error texts may be shown unmasked
	 * @return the page; its {@code next} is the cursor of the following page, or null after the last
	 * @throws IllegalArgumentException for a state without a list, or a bad filter (the message says which)
	 */
	EntryList entries(String state, @Nullable String group, @Nullable String key, long afterId, int limit, boolean shown);

	/**
	 * One entry with everything the part knows of it.
	 * @param id its id
	 * @param shown whether error texts may be shown unmasked
	 * @return its fields, or empty when there is no such entry
	 */
	Optional<Map<String, Object>> entry(long id, boolean shown);

	/**
	 * A bulk action on every entry of one group (e.g. retry all dead messages of a queue), only when
	 * their number is the one the operator confirmed.
	 * @param action the action (the view's {@link Bulk#action()})
	 * @param group the queue or destination
	 * @param confirmedCount the number the operator confirmed
	 * @return the outcome: 200 when done, 409 with the new count when it changed (nothing done), 400 for bad input
	 */
	Outcome bulk(String action, String group, long confirmedCount);

	/**
	 * Acts on one entry through the part's admin API.
	 * @param id the entry's id as given in the request
	 * @param action the action
	 * @return the outcome: 200 when done, else the 4xx and why nothing changed
	 */
	Outcome act(String id, String action);

	/**
	 * What the page shows of a part.
	 * @param kind the action path segment
	 * @param title the heading
	 * @param columns the columns of the counts table
	 * @param stats one row per queue or destination
	 * @param lists the lists of entries to act on
	 */
	record View(String kind, String title, List<Column> columns, List<Map<String, Object>> stats, List<EntryList> lists,
			@Nullable Bulk bulk) {
	}

	/**
	 * A bulk action offered on each counts row whose count is above zero.
	 * @param action the action's name
	 * @param groupKey the row's key naming the group (queue or destination)
	 * @param countKey the row's key of the count the operator confirms
	 * @param label what the button says, before the count and the group
	 */
	record Bulk(String action, String groupKey, String countKey, String label) {
	}

	/**
	 * A column.
	 * @param key the key in each row
	 * @param label its heading
	 */
	record Column(String key, String label) {
	}

	/**
	 * Entries in one state.
	 * @param title the heading
	 * @param state the state listed
	 * @param columns the columns
	 * @param entries the oldest entries, at most {@code limit}
	 * @param limit the most listed
	 * @param actions what can be done to each ("retry", ...)
	 * @param filters what the list can be filtered by: {@code group} and {@code key}, with their labels
	 * @param next the cursor of the next page ({@code after}), or null when this is the last
	 * @param states the states the list can show instead (its state filter), the listed one first
	 */
	record EntryList(String title, String state, List<Column> columns, List<Map<String, Object>> entries, int limit,
			List<String> actions, List<Column> filters, @Nullable Long next, List<String> states) {
	}

	/**
	 * The outcome of an action.
	 * @param status 200, or the 4xx
	 * @param message what happened or why nothing did
	 * @param valid the valid values when the input was wrong
	 */
	record Outcome(int status, String message, List<String> valid) {

		public static Outcome done(String message) {
			return new Outcome(200, message, List.of());
		}

	}

}
