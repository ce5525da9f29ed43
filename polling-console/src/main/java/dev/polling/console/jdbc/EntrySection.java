package dev.polling.console.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

import dev.polling.boot.actuate.PollingValueSanitizer;
import dev.polling.console.ConsoleSection;

/**
 * What the sections of the database parts share: the entries listed by state with filters (a
 * group and a key) and keyset paging, one entry's detail, and an operator action on one entry up
 * to finding it (an unknown action or id is a bad request, a missing entry 404).
 *
 * @param <E> an entry
 * @param <S> the states of an entry
 */
abstract class EntrySection<E, S extends Enum<S>> implements ConsoleSection {

	private final Listing<E, S> listing;

	private final LongFunction<Optional<E>> find;

	private final PollingValueSanitizer sanitizer;

	private final int pageSize;

	/**
	 * @param listing how the section lists its entries
	 * @param find one entry by its id, or empty
	 * @param sanitizer what it shows of error texts
	 * @param pageSize the entries of a page on the console
	 */
	EntrySection(Listing<E, S> listing, LongFunction<Optional<E>> find, PollingValueSanitizer sanitizer, int pageSize) {
		this.listing = listing;
		this.find = find;
		this.sanitizer = sanitizer;
		this.pageSize = pageSize;
	}

	/**
	 * A page of entries.
	 * @param state the state listed
	 * @param group the group (queue, destination) or {@code null} for all
	 * @param key the key or {@code null} for all
	 * @param afterId the last id of the previous page
	 * @param limit the page size
	 * @return the page
	 */
	abstract List<E> page(S state, @Nullable String group, @Nullable String key, long afterId, int limit);

	/**
	 * An entry as a row of a list.
	 * @param entry the entry
	 * @param shown whether error texts are shown
	 * @return the row, which the detail adds to
	 */
	abstract Map<String, Object> row(E entry, boolean shown);

	/**
	 * Adds what the detail of an entry shows beyond its row and state.
	 * @param entry the entry
	 * @param row its row
	 */
	void detail(E entry, Map<String, Object> row) {
	}

	/**
	 * Acts on an entry that exists.
	 * @param id its id
	 * @param entry the entry
	 * @param action one of the section's actions
	 * @return the outcome
	 */
	abstract Outcome act(long id, E entry, String action);

	@Override
	public final EntryList entries(String state, @Nullable String group, @Nullable String key, long afterId, int limit,
			boolean shown) {
		S listed = state(state);
		Listed how = this.listing.listed(listed.name());
		List<E> page = page(listed, blankToNull(group), blankToNull(key), afterId, limit);
		Long next = (page.size() == limit) ? this.listing.id().applyAsLong(page.get(page.size() - 1)) : null;
		List<String> states = new ArrayList<>(List.of(listed.name()));
		this.listing.states().stream().filter((s) -> !s.equals(listed.name())).forEach(states::add);
		return new EntryList(how.title(), listed.name(), this.listing.columns(),
				page.stream().map((e) -> row(e, shown)).toList(), limit, how.actions(), this.listing.filters(), next,
				states);
	}

	/**
	 * The first page of the entries in a state, as the section's view lists them.
	 * @param state the state
	 * @param shown whether error texts are shown
	 * @return the page
	 */
	final EntryList firstPage(String state, boolean shown) {
		return entries(state, null, null, 0, this.pageSize, shown);
	}

	final S state(String state) {
		if (state == null || !this.listing.states().contains(state.toUpperCase(Locale.ROOT))) {
			throw new IllegalArgumentException("Unknown state '" + state + "' for " + this.listing.words().many()
					+ "; list one of " + this.listing.states());
		}
		return Enum.valueOf(this.listing.type(), state.toUpperCase(Locale.ROOT));
	}

	@Override
	public final Optional<Map<String, Object>> entry(long id, boolean shown) {
		return this.find.apply(id).map((e) -> {
			Map<String, Object> row = row(e, shown);
			row.put("state", this.listing.state().apply(e).name());
			detail(e, row);
			return row;
		});
	}

	@Override
	public final Outcome act(String id, String action) {
		Words words = this.listing.words();
		if (!this.listing.actions().contains(action)) {
			return new Outcome(400, "Unknown action '" + action + "' for a " + words.one(), this.listing.actions());
		}
		Long parsed = parse(id);
		if (parsed == null) {
			return new Outcome(400, words.idLabel() + " id '" + id + "' is not a number", List.of());
		}
		Optional<E> entry = this.find.apply(parsed);
		if (entry.isEmpty()) {
			return new Outcome(404, "Unknown " + words.one() + " " + parsed + " (" + words.gone() + ")", List.of());
		}
		return act(parsed, entry.get(), action);
	}

	/**
	 * A row with the id first.
	 * @param id the id
	 * @return the row to fill
	 */
	static Map<String, Object> row(long id) {
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("id", id);
		return row;
	}

	/**
	 * An error text as the console may show it.
	 * @param text the text
	 * @param shown whether error texts are shown
	 * @return the text, or its mask
	 */
	final @Nullable String lastError(@Nullable String text, boolean shown) {
		return this.sanitizer.sanitize("lastError", text, shown);
	}

	static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.strip();
	}

	static @Nullable Long parse(String id) {
		try {
			return Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	static @Nullable String seconds(@Nullable Duration duration) {
		return (duration != null) ? duration.toSeconds() + " s" : null;
	}

	/**
	 * How a section lists its entries.
	 * @param type the states
	 * @param id an entry's id
	 * @param state an entry's state
	 * @param lists the states an operator lists, the first listed first, with their titles and actions
	 * @param fields the columns of a list between the id and the last error
	 * @param words how the section names its entries and its filters
	 */
	record Listing<E, S extends Enum<S>>(Class<S> type, ToLongFunction<E> id, Function<E, S> state, List<Listed> lists,
			List<Column> fields, Words words) {

		/** The columns of a list: the id, the fields, the last error. */
		List<Column> columns() {
			List<Column> columns = new ArrayList<>();
			columns.add(new Column("id", "Id"));
			columns.addAll(this.fields);
			columns.add(new Column("lastError", "Last error"));
			return columns;
		}

		/** The filters of a list: group and key. */
		List<Column> filters() {
			return List.of(new Column("group", this.words.group()), new Column("key", this.words.key()));
		}

		/** The names of the states an operator lists. */
		List<String> states() {
			return this.lists.stream().map(Listed::state).toList();
		}

		/** Every action on one entry, in the order of the states they act on. */
		List<String> actions() {
			return this.lists.stream().flatMap((listed) -> listed.actions().stream()).toList();
		}

		Listed listed(String state) {
			return this.lists.stream().filter((listed) -> listed.state().equals(state)).findFirst().orElseThrow();
		}

	}

	/**
	 * A state an operator lists.
	 * @param state the state's name
	 * @param title the list's title
	 * @param actions the actions on an entry in the state
	 */
	record Listed(String state, String title, List<String> actions) {

		Listed(String state, String title) {
			this(state, title, List.of());
		}

	}

	/**
	 * How a section names its entries and its filters.
	 * @param one one entry, e.g. "queue message"
	 * @param many several, e.g. "queue messages"
	 * @param idLabel what its id is called, e.g. "Message"
	 * @param gone why an id may be unknown, e.g. "purged, or never there"
	 * @param group what the group filter is called, e.g. "Queue"
	 * @param key what the key filter is called, e.g. "Business key"
	 */
	record Words(String one, String many, String idLabel, String gone, String group, String key) {
	}

}
