-- polling schema version 3: nothing changes on this database (on PostgreSQL the work queue's unused
-- open-message index goes; here the index on (queue, business_key, state, id) finds a key's BLOCKED
-- messages). The version keeps the numbering the same for every database.
SELECT 1;
