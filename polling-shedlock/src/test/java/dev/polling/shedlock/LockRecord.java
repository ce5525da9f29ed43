package dev.polling.shedlock;

import java.util.function.LongPredicate;

import org.jspecify.annotations.Nullable;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.support.StorageAccessor;

/**
 * The one lock record of a simulated ShedLock store, as ShedLock's JDBC providers keep it: inserted when
 * missing, updated (taken) when its {@code lockUntil} has passed, extended while it is live and by the same
 * owner, unlocked by the same owner; a forgetful store may lose it (the row deleted, the key evicted). The
 * simulations decide when a request is applied (the time {@code at}); this holds what it does.
 */
final class LockRecord {

	boolean exists;

	long lockUntil = Long.MIN_VALUE;

	@Nullable String owner;

	boolean insert(String owner, long at, long lockAtMostFor) {
		if (this.exists) {
			return false;
		}
		take(owner, at, lockAtMostFor);
		return true;
	}

	boolean update(String owner, long at, long lockAtMostFor) {
		if (!this.exists || this.lockUntil > at) {
			return false;
		}
		take(owner, at, lockAtMostFor);
		return true;
	}

	boolean extend(String owner, long at, long lockAtMostFor) {
		if (!this.exists || this.lockUntil <= at || !owner.equals(this.owner)) {
			return false;
		}
		this.lockUntil = at + lockAtMostFor;
		return true;
	}

	void unlock(String owner, long at) {
		if (this.exists && owner.equals(this.owner)) {
			this.lockUntil = Math.min(this.lockUntil, at);
		}
	}

	void forget() {
		this.exists = false;
		this.lockUntil = Long.MIN_VALUE;
		this.owner = null;
	}

	boolean liveAt(long at) {
		return this.exists && this.lockUntil > at;
	}

	private void take(String owner, long at, long lockAtMostFor) {
		this.exists = true;
		this.lockUntil = at + lockAtMostFor;
		this.owner = owner;
	}

	/**
	 * ShedLock's storage accessor over the record for one owner name: each call is one request, applied
	 * at the time the subclass's {@link #request} chooses.
	 */
	abstract static class Accessor implements StorageAccessor {

		final LockRecord record;

		final String owner;

		Accessor(LockRecord record, String owner) {
			this.record = record;
			this.owner = owner;
		}

		/** Applies the request to the record at a time of the simulation's choosing; the record's answer. */
		abstract boolean request(String what, LongPredicate atRecord);

		private boolean request(String what, LockConfiguration configuration, Take take) {
			long atMost = configuration.getLockAtMostFor().toNanos();
			return request(what, (at) -> take.apply(this.record, this.owner, at, atMost));
		}

		/** Taking or extending the record: {@link LockRecord#insert}, {@link LockRecord#update} or {@link LockRecord#extend}. */
		private interface Take {

			boolean apply(LockRecord record, String owner, long at, long lockAtMostFor);

		}

		@Override
		public boolean insertRecord(LockConfiguration configuration) {
			return request("insert", configuration, LockRecord::insert);
		}

		@Override
		public boolean updateRecord(LockConfiguration configuration) {
			return request("update", configuration, LockRecord::update);
		}

		@Override
		public boolean extend(LockConfiguration configuration) {
			return request("extend", configuration, LockRecord::extend);
		}

		@Override
		public void unlock(LockConfiguration configuration) {
			request("unlock", (at) -> {
				this.record.unlock(this.owner, at);
				return true;
			});
		}

	}

}
