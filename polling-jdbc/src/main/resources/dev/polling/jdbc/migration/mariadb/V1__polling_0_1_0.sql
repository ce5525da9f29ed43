-- polling schema version 1 for MariaDB 10.6+: the tables of polling 0.1.0, as released. ${prefix} is the
-- table prefix (default polling_). Every statement is idempotent (IF NOT EXISTS), so a 0.1.0 database
-- without a version table is upgraded by running this script and the later ones.
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
-- state: NEW, IN_PROGRESS, DONE, FAILED (waiting for a retry at available_at), DEAD.
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
-- state: SCHEDULED, DISPATCHED, CANCELLED, FAILED (could not be enqueued; last_error says why).
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
