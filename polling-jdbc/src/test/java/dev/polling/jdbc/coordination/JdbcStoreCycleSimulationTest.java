package dev.polling.jdbc.coordination;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.polling.core.ClusterCoordinator;
import dev.polling.core.sim.StoreCycleSimulation;
import dev.polling.jdbc.Dialect;
import dev.polling.jdbc.Schema;
import dev.polling.jdbc.TableNames;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cycle invariant and the fencing property of {@link StoreCycleSimulation} for
 * {@link JdbcCoordinator} on a real H2 database on the virtual clock: the coordinator's SQL is run
 * unchanged except that {@code CURRENT_TIMESTAMP} is rewritten to {@code SIM_NOW(database)}, an H2 function
 * alias that reads the simulation's clock (test code only: a proxy of the connections). The store's
 * fault: the cluster's row is deleted (a restore, a cleanup script), which also starts its epoch anew.
 * {@code -Dpolling.storesim.seeds=N -Dpolling.storesim.decisions=N -Dpolling.storesim.seed=FIRST}.
 */
public class JdbcStoreCycleSimulationTest {

	/** The virtual wall clock of each database (by URL), read by {@code SIM_NOW(database)}. */
	private static final Map<Long, Supplier<Instant>> CLOCKS = new ConcurrentHashMap<>();

	private static final AtomicLong DATABASES = new AtomicLong();

	@Test
	void cyclesNeverOverlapAndTokensRiseUnlessTheRowWasDeleted() {
		StoreCycleSimulation.Stats stats = StoreCycleSimulation.checkSeeds("jdbc (H2)", H2Store::new, 8);
		assertThat(stats.tokens).isPositive();
	}

	/** {@code SIM_NOW(database)}: the simulation's wall clock for the calling connection's database. */
	public static OffsetDateTime simNow(long database) {
		return OffsetDateTime.ofInstant(CLOCKS.get(database).get(), ZoneOffset.UTC);
	}

	static final class H2Store implements StoreCycleSimulation.Store {

		private final long database = DATABASES.incrementAndGet();

		private final String url = "jdbc:h2:mem:storesim-" + this.database + ";DB_CLOSE_DELAY=-1";

		private final JdbcDataSource h2 = new JdbcDataSource();

		private final DataSource virtualTime;

		H2Store(LongSupplier nanos, Supplier<Instant> wall) {
			this.h2.setURL(this.url);
			CLOCKS.put(this.database, wall);
			Schema.migrate(this.h2, Dialect.H2, TableNames.defaults());
			execute("CREATE ALIAS SIM_NOW FOR \"" + JdbcStoreCycleSimulationTest.class.getName() + ".simNow\"");
			this.virtualTime = virtualTime(this.h2, this.database);
		}

		@Override
		public ClusterCoordinator coordinator(String instanceId) {
			return new JdbcCoordinator(this.virtualTime, Dialect.H2, TableNames.defaults(), StoreCycleSimulation.FAILOVER,
					Duration.ofSeconds(1));
		}

		@Override
		public @Nullable String fault(SplittableRandom random) {
			execute("DELETE FROM " + TableNames.defaults().coordination() + " WHERE cluster_id = '" + StoreCycleSimulation.CLUSTER + "'");
			return "deleted the row";
		}

		@Override
		public boolean handsOutTokens() {
			return true;
		}

		@Override
		public void close() {
			execute("SHUTDOWN");
			CLOCKS.remove(this.database);
		}

		private void execute(String sql) {
			try (Connection connection = this.h2.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute(sql);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
			}
		}

	}

	/** The data source whose connections prepare {@code CURRENT_TIMESTAMP} as {@code SIM_NOW(database)}; no other SQL is accepted. */
	static DataSource virtualTime(JdbcDataSource h2, long database) {
		return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					Object result = invoke(h2, method, args);
					return method.getName().equals("getConnection") ? connection((Connection) result, database) : result;
				});
	}

	private static Connection connection(Connection connection, long database) {
		return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("createStatement") || method.getName().equals("prepareCall")) {
						throw new UnsupportedOperationException("the simulation rewrites prepared statements only: " + method.getName());
					}
					if (method.getName().equals("prepareStatement")) {
						args[0] = ((String) args[0]).replace("CURRENT_TIMESTAMP", "SIM_NOW(" + database + ")");
					}
					return invoke(connection, method, args);
				});
	}

	private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
