-- polling schema for H2 2.x. ${prefix} is the configured table prefix (default polling_).
-- Every statement is idempotent; the starter runs this file per polling.jdbc.initialize-schema.

-- Inbox: one row per received message, keyed by source and the message's key in that source.
CREATE TABLE IF NOT EXISTS ${prefix}inbox (
    source       VARCHAR(100)             NOT NULL,
    external_key VARCHAR(255)             NOT NULL,
    received_at  TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT ${prefix}inbox_pk PRIMARY KEY (source, external_key)
);
CREATE INDEX IF NOT EXISTS ${prefix}inbox_received_at_idx ON ${prefix}inbox (received_at);

-- Coordination: one row per cluster coordinated through the database (holder, fencing epoch, last run).
CREATE TABLE IF NOT EXISTS ${prefix}coordination (
    cluster_id VARCHAR(100)             NOT NULL,
    holder     VARCHAR(200),
    epoch      BIGINT                   NOT NULL DEFAULT 0,
    last_run   TIMESTAMP WITH TIME ZONE,
    CONSTRAINT ${prefix}coordination_pk PRIMARY KEY (cluster_id)
);
