package dev.polling.jdbc.test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A pool whose connections go through a handler of the test's: faults at exact points of a
 * statement's or transaction's life, on a real database.
 */
public final class Intercepted {

	private Intercepted() {
	}

	/**
	 * The pool, each of its connections behind the handler made for it.
	 * @param pool the real pool
	 * @param handler makes the handler of one connection
	 * @return the intercepted pool
	 */
	public static DataSource connections(DataSource pool, Function<Connection, InvocationHandler> handler) {
		return (DataSource) Proxy.newProxyInstance(Intercepted.class.getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = invoke(method, pool, args);
					return (result instanceof Connection connection) ? Proxy.newProxyInstance(
							Intercepted.class.getClassLoader(), new Class<?>[] { Connection.class }, handler.apply(connection))
							: result;
				});
	}

	/**
	 * Connections that lose the answer of one claim after the database committed it: the claim
	 * after {@code before} more (a statement whose text contains {@code claimMarker}), either
	 * committed by itself (auto-commit) or by the commit of the transaction it ran in, throws as a
	 * connection lost then.
	 * @param pool the real pool
	 * @param before how many claims answer normally first; counted down
	 * @param claimMarker text that only the claim statement contains, e.g. {@code "SET state = 'SENDING'"}
	 * @return the intercepted pool
	 */
	public static DataSource losingClaimAnswers(DataSource pool, AtomicInteger before, String claimMarker) {
		return connections(pool, (connection) -> {
			AtomicBoolean claimInTransaction = new AtomicBoolean();
			return (p, m, a) -> {
				if (m.getName().equals("commit") && claimInTransaction.getAndSet(false)) {
					connection.commit();
					if (before.getAndDecrement() == 0) {
						throw new SQLException("connection lost after the commit (simulated)", "08006");
					}
					return null;
				}
				Object made = invoke(m, connection, a);
				if (m.getName().equals("prepareStatement") && ((String) a[0]).contains(claimMarker)) {
					PreparedStatement statement = (PreparedStatement) made;
					return Proxy.newProxyInstance(Intercepted.class.getClassLoader(),
							new Class<?>[] { PreparedStatement.class }, (sp, sm, sa) -> {
								boolean autoCommit = connection.getAutoCommit();
								Object result = invoke(sm, statement, sa);
								if (sm.getName().startsWith("execute")) {
									if (!autoCommit) {
										claimInTransaction.set(true);
									}
									else if (before.getAndDecrement() == 0) {
										throw new SQLException("connection lost after the commit (simulated)", "08006");
									}
								}
								return result;
							});
				}
				return made;
			};
		});
	}

	/**
	 * Calls the method, throwing what it threw rather than a reflection wrapper.
	 * @param method the method
	 * @param target its target
	 * @param args its arguments
	 * @return its result
	 * @throws Throwable what the method threw
	 */
	public static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
