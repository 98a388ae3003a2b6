package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStores;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** A server URL whose host or port is wrong gets one clear line before any driver sees it. */
class JdbcUrlTest {

    /** Collects what a driver logs. */
    private static final class Recorder extends Handler {
        final List<String> records = new CopyOnWriteArrayList<>();

        @Override
        public void publish(LogRecord record) {
            records.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aPostgresPortOutOfRangeIsBadInputAndTheDriverSaysNothing() {
        Logger driver = Logger.getLogger("org.postgresql");
        Recorder recorder = new Recorder();
        driver.addHandler(recorder);
        try {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> LeaseStores.open("jdbc:postgresql://127.0.0.1:99999/x"));
            assertEquals("port '99999' of host 127.0.0.1 in store URL 'jdbc:postgresql://127.0.0.1:99999/x' is not a "
                    + "number from 1 to 65535", refused.getMessage());
            assertEquals(List.of(), recorder.records, "the driver logged nothing");
        } finally {
            driver.removeHandler(recorder);
        }
    }

    @Test
    void aMultiHostMariaDbUrlIsRefusedUnlessTheUnsafeOptionNamesIt() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> LeaseStores.open("jdbc:mariadb://root:SECRET123@a:3306,b:3306/test"));
        assertEquals("store URL 'jdbc:mariadb://root:***@a:3306,b:3306/test' names 2 hosts: MariaDB/MySQL replicate "
                + "asynchronously, so a failover or a partition that cuts the primary off can repeat ids; name the one "
                + "primary, or add allowRepeatedIdsOnPartition=true to accept that", refused.getMessage());
        assertEquals("allowRepeatedIdsOnPartition 'maybe' in store URL "
                + "'jdbc:postgresql://a,b/db?allowRepeatedIdsOnPartition=maybe' is not true or false",
                assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(
                        "jdbc:postgresql://a,b/db?allowRepeatedIdsOnPartition=maybe")).getMessage());
        assertEquals(1, JdbcLeaseStoreProvider.hosts("jdbc:postgresql://a:5432/db?x=1"));
        assertEquals(3, JdbcLeaseStoreProvider.hosts("jdbc:mariadb:replication://u@a,b:3307,[::1]/db"));
    }

    @Test
    void portsThatAreNotNumbersAreBadInputForEveryServerDialect() {
        for (String url : List.of("jdbc:postgresql://db:abc/x", "jdbc:mariadb://db:0/x", "jdbc:mysql://db:70000/x",
                "jdbc:postgresql://a:5432,b:x/db", "jdbc:mariadb://[::1]:99999/x")) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(url),
                    url);
            assertTrue(refused.getMessage().contains("is not a number from 1 to 65535"), refused.getMessage());
        }
    }

    @Test
    void credentialsBeforeTheHostGoToThePoolAndNeverIntoAMessage() {
        // the user info is the pool's user and password, so the port check sees only the host: a bad port
        // is refused as such, naming the URL with its password masked
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> LeaseStores.open("jdbc:mariadb://u:SECRET123@127.0.0.1:99999/x"));
        assertTrue(refused.getMessage().contains("port '99999' of host 127.0.0.1"), refused.getMessage());
        assertFalse(refused.getMessage().contains("SECRET123"), refused.getMessage());
        JdbcLeaseStoreProvider.checkAddress("jdbc:mariadb://u:SECRET123@127.0.0.1:3306/x", "jdbc:mariadb://u:***@...");
    }

    @Test
    void everyHostOfAPrimaryAndStandbyUrlIsChecked() {
        IllegalArgumentException badPort = assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(
                "jdbc:postgresql://127.0.0.1:5432,127.0.0.1:99999/x?targetServerType=primary&password=SECRET123"));
        assertEquals("port '99999' of host 127.0.0.1 in store URL 'jdbc:postgresql://127.0.0.1:5432,127.0.0.1:99999/x"
                + "?targetServerType=primary&password=***' is not a number from 1 to 65535", badPort.getMessage());
        IllegalArgumentException noHost = assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(
                "jdbc:postgresql://127.0.0.1:5432,/x?targetServerType=primary"));
        assertEquals("store URL 'jdbc:postgresql://127.0.0.1:5432,/x?targetServerType=primary' names no host",
                noHost.getMessage());
    }

    @Test
    void wellFormedAddressesPassTheCheck() {
        for (String url : List.of("jdbc:postgresql://db/x", "jdbc:postgresql://db:5432,db2:5433/x?user=u",
                "jdbc:postgresql://10.0.0.1:5432,10.0.0.2:5432/ids?targetServerType=primary",
                "jdbc:mariadb://[::1]:3306/x", "jdbc:mariadb:replication://a:3306,b:3307/x", "jdbc:postgresql:x")) {
            JdbcLeaseStoreProvider.checkAddress(url, url);
        }
    }
}
