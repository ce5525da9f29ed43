package dev.polling.benchmarks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

import javax.sql.DataSource;

/**
 * A data source that counts, as the client sees them, the round trips to the server and the
 * transactions each caller ends: every statement execution and every {@code commit}/{@code rollback}
 * is a round trip; a transaction ends at each {@code commit}, and at each statement executed in
 * auto-commit mode (the server commits it on its own). Connection checkout from the pool and
 * pgjdbc's BEGIN (sent with the first statement) are not round trips of their own.
 */
final class CountingDataSource implements DataSource {

	private final DataSource target;

	final LongAdder roundTrips = new LongAdder();

	final LongAdder commits = new LongAdder();

	CountingDataSource(DataSource target) {
		this.target = target;
	}

	void reset() {
		this.roundTrips.reset();
		this.commits.reset();
	}

	@Override
	public Connection getConnection() throws SQLException {
		return wrap(this.target.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return wrap(this.target.getConnection(username, password));
	}

	private Connection wrap(Connection connection) {
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					String name = method.getName();
					if (name.equals("commit")) {
						this.roundTrips.increment();
						this.commits.increment();
					}
					else if (name.equals("rollback")) {
						this.roundTrips.increment();
					}
					else if (name.equals("unwrap") && args != null && args[0] == Connection.class) {
						return proxy;
					}
					Object result = invokeOn(connection, method, args);
					if (result instanceof Statement statement
							&& (name.startsWith("prepare") || name.equals("createStatement"))) {
						return wrap(statement, method.getReturnType(), connection);
					}
					return result;
				});
	}

	private Object wrap(Statement statement, Class<?> type, Connection connection) {
		return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
			if (method.getName().startsWith("execute")) {
				this.roundTrips.increment();
				if (connection.getAutoCommit()) {
					this.commits.increment();
				}
			}
			return invokeOn(statement, method, args);
		});
	}

	private static Object invokeOn(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		this.target.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.target.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.target.getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		return this.target.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> type) throws SQLException {
		return this.target.unwrap(type);
	}

	@Override
	public boolean isWrapperFor(Class<?> type) throws SQLException {
		return this.target.isWrapperFor(type);
	}

}
