/**
 * Real-database test fixtures, shipped in polling-core's test-jar for the other modules:
 * {@link dev.polling.jdbc.test.TestDatabases} starts PostgreSQL (embedded binaries, or
 * Testcontainers), MariaDB (a private {@code mariadbd} process, or Testcontainers) and H2 once per
 * JVM and hands out a fresh database per call; {@link dev.polling.jdbc.test.DatabaseTest} is the
 * base of a test written once and run on every database by one small subclass per database.
 */
@NullMarked
package dev.polling.jdbc.test;

import org.jspecify.annotations.NullMarked;
