-- polling schema version 2 for H2 2.x: what changed since 0.1.0. ${prefix} is the table prefix.
-- Idempotent like version 1: a database whose tables a 0.2.0 development snapshot created already has
-- most of it, and a run cut off half-way (a crash) can run again.

-- Jobs: retries of a dispatch that failed (attempts, next_attempt_at), the time a job was dispatched or
-- cancelled (finished_at, for the retention purge), the job of a message (message_id).
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS next_attempt_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE ${prefix}job ADD COLUMN IF NOT EXISTS finished_at TIMESTAMP WITH TIME ZONE;
CREATE INDEX IF NOT EXISTS ${prefix}job_message_idx ON ${prefix}job (message_id);
-- The retention purge of delivered messages and of dispatched or cancelled jobs.
CREATE INDEX IF NOT EXISTS ${prefix}delivery_finished_idx ON ${prefix}delivery (state, finished_at);
CREATE INDEX IF NOT EXISTS ${prefix}job_finished_idx ON ${prefix}job (state, finished_at);
UPDATE ${prefix}job SET finished_at = COALESCE(dispatched_at, created_at) WHERE finished_at IS NULL AND state IN ('DISPATCHED', 'CANCELLED');
-- scheduleOnce frees its id at dispatch: free the ids of jobs 0.1.0 dispatched.
UPDATE ${prefix}job SET unique_key = NULL WHERE state = 'DISPATCHED' AND unique_key IS NOT NULL;

-- Per-key ordering. One row per queue and business key with open messages, counting them; only a key's
-- oldest open message (its head) is claimable, the younger ones wait in state BLOCKED.
CREATE TABLE IF NOT EXISTS ${prefix}queue_key (
    queue        VARCHAR(100) NOT NULL,
    business_key VARCHAR(255) NOT NULL,
    open_count   INTEGER      NOT NULL,
    CONSTRAINT ${prefix}queue_key_pk PRIMARY KEY (queue, business_key)
);
-- The keys of the messages 0.1.0 left open: the younger open messages of each key set BLOCKED behind
-- its head, then the key's row with its count. Only keys without a row: where this version's code
-- already runs (a development snapshot's tables, a repeated run), it keeps the rows and states itself.
UPDATE ${prefix}queue q SET state = 'BLOCKED' WHERE q.business_key IS NOT NULL AND q.state IN ('NEW', 'FAILED') AND q.id > (SELECT MIN(o.id) FROM ${prefix}queue o WHERE o.queue = q.queue AND o.business_key = q.business_key AND o.state IN ('NEW', 'BLOCKED', 'IN_PROGRESS', 'FAILED', 'DEAD')) AND NOT EXISTS (SELECT 1 FROM ${prefix}queue_key k WHERE k.queue = q.queue AND k.business_key = q.business_key);
INSERT INTO ${prefix}queue_key (queue, business_key, open_count) SELECT q.queue, q.business_key, COUNT(*) FROM ${prefix}queue q WHERE q.business_key IS NOT NULL AND q.state IN ('NEW', 'BLOCKED', 'IN_PROGRESS', 'FAILED', 'DEAD') AND NOT EXISTS (SELECT 1 FROM ${prefix}queue_key k WHERE k.queue = q.queue AND k.business_key = q.business_key) GROUP BY q.queue, q.business_key;
