package dev.polling.console;

import java.util.List;
import java.util.Map;

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
	record View(String kind, String title, List<Column> columns, List<Map<String, Object>> stats, List<EntryList> lists) {
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
	 */
	record EntryList(String title, String state, List<Column> columns, List<Map<String, Object>> entries, int limit,
			List<String> actions) {
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
