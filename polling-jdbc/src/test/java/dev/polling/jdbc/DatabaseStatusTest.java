package dev.polling.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.polling.jdbc.test.LogCapture;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The outage bookkeeping of {@link DatabaseStatus}, each interleaving of parts written out step by
 * step: which report starts an outage, which success may end it, and what the log says.
 */
class DatabaseStatusTest {

	private static final SQLNonTransientConnectionException CONNECTION_LOST = new SQLNonTransientConnectionException(
			"terminating connection due to administrator command", "08006");

	@Test
	void aRoundAnsweredBeforeTheOutageButReportedAfterItDoesNotEndIt() {
		try (LogCapture log = LogCapture.start()) {
			DatabaseStatus status = new DatabaseStatus("instance-a");
			// the delivery's round starts and is answered while the server is still up ...
			long deliveryRound = status.roundStarted();
			// ... the server goes down, the job dispatcher's connection is terminated and reported first ...
			assertThat(status.failed("dispatching due jobs", CONNECTION_LOST)).isTrue();
			// ... then the delivery thread reports its earlier round as a success
			status.succeeded(deliveryRound);
			assertThat(status.isAvailable()).as("an answer from before the outage does not end it").isFalse();
			// the delivery's next round fails: the same outage, not a second one
			assertThat(status.failed("delivering outgoing messages", CONNECTION_LOST)).isTrue();
			assertThat(status.outages()).isOne();
			assertThat(log.lines("WARN", DatabaseStatus.class.getName(), "database of instance-a is unavailable"))
				.hasSize(1);
			assertThat(log.lines("INFO", DatabaseStatus.class.getName(), "available again")).isEmpty();
		}
	}

	@Test
	void aRoundThatBeganAfterTheOutageBeganEndsItOnce() {
		try (LogCapture log = LogCapture.start()) {
			DatabaseStatus status = new DatabaseStatus("instance-a");
			status.failed("claiming messages", CONNECTION_LOST);
			assertThat(status.unavailableSince()).isPresent();
			assertThat(status.lastError()).hasValueSatisfying((error) -> assertThat(error).contains("administrator"));
			long round = status.roundStarted();
			status.succeeded(round);
			status.succeeded(status.roundStarted());
			assertThat(status.isAvailable()).isTrue();
			assertThat(status.unavailableSince()).isEmpty();
			assertThat(status.lastError()).isEmpty();
			assertThat(log.lines("INFO", DatabaseStatus.class.getName(), "database of instance-a is available again"))
				.hasSize(1);
			// a new failure is a new outage
			status.failed("claiming messages", CONNECTION_LOST);
			assertThat(status.outages()).isEqualTo(2);
		}
	}

	@Test
	void theLastOutageKeepsWhenEachPartFirstReachedTheDatabaseAgain() {
		DatabaseStatus status = new DatabaseStatus("instance-a");
		assertThat(status.lastOutage()).isEmpty();
		long before = status.roundStarted();
		status.failed("claiming messages", CONNECTION_LOST);
		// a round that began before the outage says nothing about a part's resumption
		status.succeeded(DatabaseStatus.DELIVERY_DISPATCHER, before);
		assertThat(status.lastOutage()).hasValueSatisfying((outage) -> {
			assertThat(outage.ended()).isNull();
			assertThat(outage.resumed()).isEmpty();
		});
		status.succeeded(DatabaseStatus.QUEUE_WORKERS, status.roundStarted());
		DatabaseStatus.Outage ended = status.lastOutage().orElseThrow();
		assertThat(ended.ended()).isNotNull();
		assertThat(ended.resumed()).containsOnlyKeys(DatabaseStatus.QUEUE_WORKERS);
		// after the outage ended: another part's first success is still recorded, later ones are not
		status.succeeded(DatabaseStatus.DELIVERY_DISPATCHER, status.roundStarted());
		java.time.Instant firstDelivery = status.lastOutage().orElseThrow().resumed().get(DatabaseStatus.DELIVERY_DISPATCHER);
		status.succeeded(DatabaseStatus.DELIVERY_DISPATCHER, status.roundStarted());
		DatabaseStatus.Outage outage = status.lastOutage().orElseThrow();
		assertThat(outage.resumed()).containsOnlyKeys(DatabaseStatus.QUEUE_WORKERS, DatabaseStatus.DELIVERY_DISPATCHER);
		assertThat(outage.resumed().get(DatabaseStatus.DELIVERY_DISPATCHER)).isEqualTo(firstDelivery);
		assertThat(outage.resumedAfterEnd(DatabaseStatus.DELIVERY_DISPATCHER)).hasValueSatisfying(
				(after) -> assertThat(after.isNegative()).isFalse());
		assertThat(outage.resumedAfterEnd(DatabaseStatus.JOB_DISPATCHER)).isEmpty();
		// a new outage starts a new record
		status.failed("claiming messages", CONNECTION_LOST);
		assertThat(status.lastOutage()).hasValueSatisfying((next) -> {
			assertThat(next.began()).isAfterOrEqualTo(outage.began());
			assertThat(next.resumed()).isEmpty();
		});
	}

	@Test
	void failuresThatDoNotShowTheDatabaseUnreachableStartNoOutage() {
		DatabaseStatus status = new DatabaseStatus("instance-a");
		assertThat(status.failed("claiming messages", new SQLTimeoutException("statement timeout", "57014")))
			.as("a cancelled statement is the caller's to log").isFalse();
		assertThat(status.isAvailable()).isTrue();
		assertThat(status.outages()).isZero();
	}

}
