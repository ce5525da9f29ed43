-- polling schema version 4: nothing changes on this database (on PostgreSQL a partial index of the
-- work queue's DEAD messages is added; this database has no partial indexes, and a full one would
-- cost every enqueue and claim). The version keeps the numbering the same for every database.
SELECT 1;
