package dev.polling.jdbc.test;

/**
 * A running database server that creates fresh databases.
 */
interface DatabaseServer {

	/**
	 * Creates an empty database.
	 * @param name the database name
	 * @return the database
	 */
	TestDatabase createDatabase(String name);

}
