package dev.cosid.cli;

import static dev.cosid.cli.Migration.all;
import static dev.cosid.cli.Migration.assertAllGreaterAndNoneRepeated;
import static dev.cosid.cli.Migration.issueOurs;
import static dev.cosid.cli.Migration.migrate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import me.ahoo.cosid.machine.LocalMachineStateStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migration from CosId 2.x's JDBC machine table {@code cosid_machine}, on MariaDB with CosId's published
 * DDL and on PostgreSQL, written by {@link CosIdJdbcMachineTable} (CosId's distributor flow and statements),
 * into our JDBC store on the same database.
 */
class MigrateFromCosIdJdbcTest {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> MARIADB = new ServerExtension<>(MariaDbServer::started);
    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @TempDir
    Path dir;

    @Test
    void aMariaDbMachineTableMadeWithCosIdsDdlRaisesEverySlotOfOurStoreOnIt() throws SQLException {
        migrateFrom(MARIADB.server().jdbcUrl(), CosIdJdbcMachineTable.MYSQL_DDL);
    }

    @Test
    void aPostgresMachineTableRaisesEverySlotOfOurStoreOnIt() throws SQLException {
        migrateFrom(POSTGRES.server().jdbcUrl(), CosIdJdbcMachineTable.POSTGRES_DDL);
    }

    private void migrateFrom(String url, String ddl) throws SQLException {
        CosIdJdbcMachineTable.create(url, ddl);
        LegacyInstance stopped = LegacyInstance.start(table(url, "a"), "orders", "10.0.0.1:8080");
        LegacyInstance crashed = LegacyInstance.start(table(url, "b"), "orders", "10.0.0.2:8080");
        assertEquals(0, stopped.machineId());
        crashed.issueFor(Duration.ofMillis(400));
        crashed.crash();
        stopped.issueFor(Duration.ofMillis(1000));
        stopped.stopCleanly();
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement();
             ResultSet released = statement.executeQuery("select count(*) from cosid_machine where instance_id = ''")) {
            released.next();
            assertEquals(1, released.getInt(1), "CosId's revert empties instance_id and keeps the machine's row");
        }

        Cli done = migrate("--from-jdbc", url, "--legacy-namespace", "orders",
                "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                "--to-store", url, "--namespace", "orders", "--bits", "4");
        assertTrue(done.out().contains("cosid_machine row 'orders.00000000' (released)"), done.out());
        assertTrue(done.out().contains("raised the next floor of 16 of 16 slots"), done.out());

        long[] theirs = all(stopped, crashed);
        long[] ours = issueOurs(CosIdRuntime.builder().store(url).namespace("orders").bits(4),
                IdLayout.MILLISECOND, theirs);
        assertAllGreaterAndNoneRepeated(theirs, ours, IdLayout.MILLISECOND);
    }

    private CosIdJdbcMachineTable table(String url, String instance) {
        return new CosIdJdbcMachineTable(url, new LocalMachineStateStorage(dir.resolve("state-" + instance).toString()));
    }
}
