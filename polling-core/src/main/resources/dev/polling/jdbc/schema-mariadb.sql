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
