package dev.polling.jdbc.builder;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import dev.polling.core.PollingSettings;
import dev.polling.jdbc.internal.Arguments;

/**
 * The settings of a store whose rows are claimed with a lease: the instance id written (with a
 * random suffix) as the owner of claimed rows, the lease, and the attempts before a row goes dead.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class ClaimBuilder<B extends ClaimBuilder<B>> extends StoreBuilder<B> {

	private String instanceId = PollingSettings.defaultInstanceId();

	private Duration leaseTime;

	private int maxAttempts;

	private final String leaseAdvice;

	/**
	 * For the builders of the parts.
	 * @param dataSource the data source
	 * @param leaseTime the default lease
	 * @param maxAttempts the default attempts
	 * @param leaseAdvice what a lease should outlast, with an example, for the error on a lease out
	 * of range
	 */
	protected ClaimBuilder(DataSource dataSource, Duration leaseTime, int maxAttempts, String leaseAdvice) {
		super(dataSource);
		this.leaseTime = leaseTime;
		this.maxAttempts = maxAttempts;
		this.leaseAdvice = leaseAdvice;
	}

	/**
	 * Sets the instance id written (with a random suffix) as owner of claimed rows (default: host
	 * name and pid).
	 * @param instanceId the instance id
	 * @return this builder
	 */
	public B instanceId(String instanceId) {
		this.instanceId = Arguments.key("instanceId", instanceId, 160, "e.g. the host name and pid");
		return self();
	}

	/**
	 * Sets the lease of a claim: longer than the slowest work done under it.
	 * @param leaseTime between 1 s and 1 day
	 * @return this builder
	 */
	public B leaseTime(Duration leaseTime) {
		Objects.requireNonNull(leaseTime, "leaseTime must not be null");
		if (leaseTime.compareTo(Duration.ofSeconds(1)) < 0 || leaseTime.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException("leaseTime must be between 1s and 1d but was " + leaseTime + ": "
					+ this.leaseAdvice);
		}
		this.leaseTime = leaseTime;
		return self();
	}

	/**
	 * Sets the attempts before a row goes dead, stored with each row.
	 * @param maxAttempts between 1 and 100
	 * @return this builder
	 */
	public B maxAttempts(int maxAttempts) {
		this.maxAttempts = Arguments.between("maxAttempts", maxAttempts, 1, 100, "e.g. 3");
		return self();
	}

	/**
	 * The claim settings, with a new owner id: the instance id plus a random suffix.
	 * @return the settings
	 */
	protected final Claims claims() {
		String owner = Arguments.cut(this.instanceId, 160) + "/" + UUID.randomUUID().toString().substring(0, 8);
		return new Claims(owner, this.leaseTime, this.maxAttempts);
	}

	/**
	 * What a claiming store was built with.
	 *
	 * @param owner the owner id written into claimed rows
	 * @param leaseTime the lease of a claim
	 * @param maxAttempts the attempts before a row goes dead
	 */
	public record Claims(String owner, Duration leaseTime, int maxAttempts) {
	}

}
