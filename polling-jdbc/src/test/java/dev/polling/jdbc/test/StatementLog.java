package dev.polling.jdbc.test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * Records the SQL text of every statement prepared on the connections of a real data source, and
 * of every statement executed through {@code createStatement()}, so a test can ask the database how
 * it runs them ({@link QueryPlans}) or check what was sent. Nothing is changed on the way: the calls
 * go to the real driver.
 */
public final class StatementLog {

	private final DataSource target;

	private final List<String> statements = new CopyOnWriteArrayList<>();

	private final java.util.concurrent.atomic.AtomicInteger commits = new java.util.concurrent.atomic.AtomicInteger();

	/**
	 * Logs the statements prepared on connections of the data source.
	 * @param target the real data source
	 */
	public StatementLog(DataSource target) {
		this.target = target;
	}

	/**
	 * The data source to hand to the code under test.
	 * @return a data source whose connections record what they prepare
	 */
	public DataSource dataSource() {
		return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = invoke(this.target, method, args);
					return (result instanceof Connection connection) ? record(connection) : result;
				});
	}

	/**
	 * The statements prepared so far, in order.
	 * @return the SQL texts
	 */
	public List<String> statements() {
		return List.copyOf(this.statements);
	}

	/**
	 * How many times {@code commit()} was called on the connections since the last {@link #clear()}
	 * (statements in auto-commit mode commit on their own and are not counted).
	 * @return the count
	 */
	public int commits() {
		return this.commits.get();
	}

	/** Forgets what was recorded. */
	public void clear() {
		this.statements.clear();
		this.commits.set(0);
	}

	private Connection record(Connection connection) {
		InvocationHandler handler = (proxy, method, args) -> {
			if ((method.getName().equals("prepareStatement") || method.getName().equals("prepareCall")) && args != null
					&& args[0] instanceof String sql) {
				this.statements.add(sql);
			}
			if (method.getName().equals("commit")) {
				this.commits.incrementAndGet();
			}
			Object result = invoke(connection, method, args);
			return (result instanceof Statement statement && !(result instanceof PreparedStatement)) ? record(statement)
					: result;
		};
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				handler);
	}

	private Statement record(Statement statement) {
		InvocationHandler handler = (proxy, method, args) -> {
			if ((method.getName().startsWith("execute") || method.getName().equals("addBatch")) && args != null
					&& args.length > 0 && args[0] instanceof String sql) {
				this.statements.add(sql);
			}
			return invoke(statement, method, args);
		};
		return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Statement.class },
				handler);
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
