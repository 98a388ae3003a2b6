package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.time.Clock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the JDBC transport adds to the contract: its URL handling, its tables, and a fence that outlives it. */
class JdbcCoordinationTransportTest {

    private static final Role ROLE = Role.of("controller");

    @TempDir
    Path dir;

    @Test
    void theFenceOutlivesTheTransportSoAReopenedOneMintsPastEveryEarlierToken() {
        String url = "sqlite:" + dir.resolve("leader.db");
        try (CoordinationTransport first = CoordinationTransports.open(url)) {
            first.acquireEpoch(ROLE);
            assertEquals(FencingToken.of(2, (short) 0), first.acquireEpoch(ROLE));
        }
        try (CoordinationTransport again = CoordinationTransports.open(url)) {
            assertEquals(Optional.of(FencingToken.of(2, (short) 0)), again.describe(ROLE));
            assertEquals(FencingToken.of(3, (short) 0), again.acquireEpoch(ROLE));
        }
    }

    @Test
    void withCreateSchemaFalseAndNoTablesTheTransportRefusesAndPrintsTheirDdl() {
        CoordinationException missing = assertThrows(CoordinationException.class, () -> CoordinationTransports.open(
                "jdbc:h2:mem:noschema;DB_CLOSE_DELAY=-1;createSchema=false"));
        assertTrue(missing.getMessage().contains("the leadership tables are missing in jdbc:h2:mem:noschema"),
                missing.getMessage());
        assertTrue(missing.getMessage().contains("CREATE TABLE IF NOT EXISTS cosid_leader_member ("),
                missing.getMessage());
        String created = "jdbc:h2:mem:withschema;DB_CLOSE_DELAY=-1";
        try (CoordinationTransport transport = CoordinationTransports.open(created)) {
            transport.register(ROLE, MemberId.of("a"), 1);
        }
        try (CoordinationTransport transport = CoordinationTransports.open(created + ";createSchema=false")) {
            assertEquals(1, transport.readRoleRecords(ROLE).size(), "the tables exist: no DDL needed");
        }
    }

    @Test
    void theTablesAreTheLeadershipOnesOnlyAndTheirDdlIsPublishedPerDialect() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:leaderonly;DB_CLOSE_DELAY=-1");
        try (CoordinationTransport transport = JdbcCoordinationTransport.on(h2)) {
            transport.acquireEpoch(ROLE);
        }
        try (Connection c = h2.getConnection(); Statement statement = c.createStatement()) {
            var tables = statement.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE "
                    + "LOWER(TABLE_NAME) LIKE 'cosid%'");
            tables.next();
            assertEquals(2, tables.getInt(1), "cosid_leader and cosid_leader_member, no id tables");
        }
        for (String dialect : new String[] {"sqlite", "postgresql", "mariadb", "h2"}) {
            assertEquals(2, JdbcCoordinationTransport.schema(JdbcDialect.named(dialect)).size(), dialect);
        }
        assertTrue(JdbcCoordinationTransport.schema(JdbcDialect.MARIADB).get(0).contains("utf8mb4_bin"),
                "names compare byte for byte on MariaDB");
    }

    @Test
    void aMalformedUrlIsRefusedBeforeAnyConnectionWithItsPasswordMasked() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class, () -> CoordinationTransports.open(
                "jdbc:postgresql://cosid:s3cret@127.0.0.1:99999/app"));
        assertEquals("port '99999' of host 127.0.0.1 in store URL 'jdbc:postgresql://cosid:***@127.0.0.1:99999/app' "
                + "is not a number from 1 to 65535", port.getMessage());
        IllegalArgumentException hosts = assertThrows(IllegalArgumentException.class, () -> CoordinationTransports.open(
                "jdbc:mariadb://h1,h2/app?password=s3cret"));
        assertTrue(hosts.getMessage().contains("allowRepeatedIdsOnPartition=true"), hosts.getMessage());
        assertFalse(hosts.getMessage().contains("s3cret"), hosts.getMessage());
    }

    @Test
    void anUnreachableDatabaseFailsWithinTheConnectBoundNamingItWithoutThePassword() {
        Clock clock = Clock.system();
        long start = clock.monotonicNanos();
        CoordinationException unreachable = assertThrows(CoordinationException.class, () -> CoordinationTransports.open(
                "jdbc:postgresql://cosid:s3cret@127.0.0.1:1/app"));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
        assertTrue(unreachable.getMessage().startsWith("cannot reach jdbc:postgresql://cosid:***@127.0.0.1:1/app within "
                + "5000 ms"), unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("s3cret"), unreachable.getMessage());
        assertTrue(tookMillis < 10_000, "failed after " + tookMillis + " ms");
    }
}
