package dev.polling.jdbc.internal;

import dev.polling.jdbc.DataAccessFailure;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims whose answer may have been lost. Each claim writes an owner of its own (the part's owner,
 * {@code #}, the claim's number); when the call fails, the database may still have committed it
 * without the part learning which rows it took. Those owners are remembered, and {@link #release}
 * gives their rows back (never handed to a worker or sender) instead of leaving them to wait out
 * their lease. Used by the work queue and the delivery guard.
 */
public final class UnansweredClaims {

	private static final Logger logger = LoggerFactory.getLogger(UnansweredClaims.class);

	private final String owner;

	private final String releaseSql;

	private final AtomicLong claims = new AtomicLong();

	private final Set<String> unanswered = ConcurrentHashMap.newKeySet();

	/**
	 * @param owner the part's owner id
	 * @param releaseSql gives back the rows still claimed under one claim's owner, its only parameter
	 */
	public UnansweredClaims(String owner, String releaseSql) {
		this.owner = owner;
		this.releaseSql = releaseSql;
	}

	/**
	 * Runs a call that claims rows under an owner of its own, remembered if the call fails.
	 * @param <T> the call's result
	 * @param call claims with the given owner
	 * @return what the call returned
	 */
	public <T> T claiming(Function<String, T> call) {
		String claimOwner = this.owner + "#" + this.claims.incrementAndGet();
		try {
			return call.apply(claimOwner);
		}
		catch (RuntimeException | Error ex) {
			this.unanswered.add(claimOwner);
			throw ex;
		}
	}

	/**
	 * Gives back the rows of the remembered claims; while the database still fails, they are tried
	 * again at the next call. Costs nothing when no claim went unanswered.
	 * @param dataSource where to run the release
	 * @param released told the owner and the count of each release that gave rows back
	 */
	public void release(DataSource dataSource, Released released) {
		if (this.unanswered.isEmpty()) {
			return;
		}
		for (String claimOwner : List.copyOf(this.unanswered)) {
			int count;
			try {
				count = Sql.inOneStatement(dataSource, "release the rows of an unanswered claim", (connection) -> {
					try (PreparedStatement statement = connection.prepareStatement(this.releaseSql)) {
						statement.setString(1, claimOwner);
						return statement.executeUpdate();
					}
				});
			}
			catch (DataAccessFailure ex) {
				logger.debug("Could not release the rows of the unanswered claim {} yet", claimOwner, ex);
				return;
			}
			this.unanswered.remove(claimOwner);
			if (count > 0) {
				released.released(claimOwner, count);
			}
		}
	}

	/** Told of rows given back. */
	@FunctionalInterface
	public interface Released {

		/**
		 * @param claimOwner the claim's owner
		 * @param count the rows given back
		 */
		void released(String claimOwner, int count);

	}

}
