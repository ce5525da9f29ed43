-- polling schema version 4 for PostgreSQL: an index of the work queue's DEAD messages, so that an
-- operator's page of them (QueueAdmin.entries, the console), their count and the bulk retry of a
-- queue read the dead messages, not the table: without it a page of DEAD messages in a table of
-- 100,000 mostly DONE rows walked the primary key over all of them (PostgresAdminListingPlanTest).
-- Partial: a message gets an entry only when it dies, so enqueues and claims do not pay for it
-- (measured: WAL bytes per enqueue and per claim and completion within the noise with and without).
-- Idempotent.
CREATE INDEX IF NOT EXISTS ${prefix}queue_dead_idx ON ${prefix}queue (queue, id) WHERE state = 'DEAD';
