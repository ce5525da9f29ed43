-- polling schema for MariaDB 10.6+ and MySQL 8. ${prefix} is the configured table prefix (default polling_).
-- Every statement is idempotent; the starter runs this file per polling.jdbc.initialize-schema.
-- Times are DATETIME(6) in UTC (written with UTC_TIMESTAMP(6)); keys compare exactly (utf8mb4_bin).

-- Inbox: one row per received message, keyed by source and the message's key in that source.
CREATE TABLE IF NOT EXISTS ${prefix}inbox (
    source       VARCHAR(100) NOT NULL,
    external_key VARCHAR(255) NOT NULL,
    received_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (source, external_key),
    INDEX ${prefix}inbox_received_at_idx (received_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Coordination: one row per cluster coordinated through the database (holder, fencing epoch, last run).
CREATE TABLE IF NOT EXISTS ${prefix}coordination (
    cluster_id VARCHAR(100) NOT NULL,
    holder     VARCHAR(200),
    epoch      BIGINT       NOT NULL DEFAULT 0,
    last_run   DATETIME(6),
    PRIMARY KEY (cluster_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Work queue: messages claimed by workers on every instance (see dev.polling.jdbc.queue.WorkQueue).
-- state: NEW, BLOCKED (behind an older open message of its key), IN_PROGRESS, DONE, FAILED (waiting for a
-- retry at available_at), DEAD.
-- fence: bumped by every claim and by lease expiry; every later write checks it.
CREATE TABLE IF NOT EXISTS ${prefix}queue (
    id           BIGINT       NOT NULL AUTO_INCREMENT,
    queue        VARCHAR(100) NOT NULL,
    business_key VARCHAR(255),
    payload      MEDIUMTEXT   NOT NULL,
    state        VARCHAR(16)  NOT NULL,
    attempts     INT          NOT NULL DEFAULT 0,
    max_attempts INT          NOT NULL,
    fence        BIGINT       NOT NULL DEFAULT 0,
    owner        VARCHAR(200),
    available_at DATETIME(6)  NOT NULL,
    lease_until  DATETIME(6),
    enqueued_at  DATETIME(6)  NOT NULL,
    finished_at  DATETIME(6),
    last_error   VARCHAR(1000),
    PRIMARY KEY (id),
    INDEX ${prefix}queue_ready_idx (queue, state, id),
    INDEX ${prefix}queue_key_idx (queue, business_key, state, id),
    INDEX ${prefix}queue_state_idx (state, lease_until),
    INDEX ${prefix}queue_finished_idx (state, finished_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Delivery guard: outgoing messages, stored in the business transaction, sent at most once unless
-- the destination is idempotent (see dev.polling.jdbc.delivery.DeliveryGuard).
-- state: PENDING, SENDING, DELIVERED, FAILED (definitely not delivered, retry at available_at),
-- IN_DOUBT (outcome unknown, waits for an operator), DEAD.
CREATE TABLE IF NOT EXISTS ${prefix}delivery (
    id              BIGINT       NOT NULL AUTO_INCREMENT,
    destination     VARCHAR(100) NOT NULL,
    idempotency_key VARCHAR(255) NOT NULL,
    payload         MEDIUMTEXT   NOT NULL,
    state           VARCHAR(16)  NOT NULL,
    attempts        INT          NOT NULL DEFAULT 0,
    max_attempts    INT          NOT NULL,
    fence           BIGINT       NOT NULL DEFAULT 0,
    owner           VARCHAR(200),
    available_at    DATETIME(6)  NOT NULL,
    lease_until     DATETIME(6),
    created_at      DATETIME(6)  NOT NULL,
    finished_at     DATETIME(6),
    last_error      VARCHAR(1000),
    PRIMARY KEY (id),
    UNIQUE KEY ${prefix}delivery_key_uq (destination, idempotency_key),
    INDEX ${prefix}delivery_ready_idx (destination, state, id),
    INDEX ${prefix}delivery_state_idx (state, lease_until)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Scheduled jobs: moved into the work queue when due (see dev.polling.jdbc.jobs.JobScheduler).
-- state: SCHEDULED, DISPATCHED, CANCELLED, FAILED (its message went DEAD: the handler failed for good).
-- unique_key: set for jobs scheduled with scheduleOnce (queue and business id), else null.
CREATE TABLE IF NOT EXISTS ${prefix}job (
    id            BIGINT       NOT NULL AUTO_INCREMENT,
    queue         VARCHAR(100) NOT NULL,
    business_id   VARCHAR(255) NOT NULL,
    unique_key    VARCHAR(360),
    payload       MEDIUMTEXT   NOT NULL,
    state         VARCHAR(16)  NOT NULL,
    due_at        DATETIME(6)  NOT NULL,
    created_at    DATETIME(6)  NOT NULL,
    dispatched_at DATETIME(6),
    message_id    BIGINT,
    last_error    VARCHAR(1000),
    PRIMARY KEY (id),
    UNIQUE KEY ${prefix}job_unique (unique_key),
    INDEX ${prefix}job_due_idx (state, due_at, id),
    INDEX ${prefix}job_business_idx (queue, business_id, state)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- since 0.2.0: retries of a dispatch that failed (attempts, next_attempt_at), the time a job was
-- dispatched or cancelled (finished_at, for the retention purge), the job of a message (message_id)
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS next_attempt_at DATETIME(6);
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS finished_at DATETIME(6);
CREATE INDEX IF NOT EXISTS ${prefix}job_message_idx ON ${prefix}job (message_id);
-- since 0.2.0: the retention purge of delivered messages and of dispatched or cancelled jobs
CREATE INDEX IF NOT EXISTS ${prefix}delivery_finished_idx ON ${prefix}delivery (state, finished_at);
CREATE INDEX IF NOT EXISTS ${prefix}job_finished_idx ON ${prefix}job (state, finished_at);
UPDATE ${prefix}job SET finished_at = COALESCE(dispatched_at, created_at) WHERE finished_at IS NULL AND state IN ('DISPATCHED', 'CANCELLED');
-- since 0.2.0: per-key ordering. One row per queue and business key with open messages, counting
-- them; only a key's oldest open message is claimable, the younger ones wait in state BLOCKED.
CREATE TABLE IF NOT EXISTS ${prefix}queue_key (
    queue        VARCHAR(100) NOT NULL,
    business_key VARCHAR(255) NOT NULL,
    open_count   INTEGER      NOT NULL,
    PRIMARY KEY (queue, business_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
