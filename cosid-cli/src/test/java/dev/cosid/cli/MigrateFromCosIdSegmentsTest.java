package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SegmentRange;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.LongStream;
import me.ahoo.cosid.segment.DefaultSegmentId;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.segment.SegmentId;
import me.ahoo.cosid.spring.redis.SpringRedisIdSegmentDistributor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Migration of CosId 2.x segment counters: CosId's own generators ({@code DefaultSegmentId},
 * {@code SegmentChainId} with its prefetching) issue ids from CosId's own Redis distributor and from
 * its JDBC statements, {@code ./cosid migrate --from-cosid-segments} runs, then our segments continue
 * above every id CosId issued.
 */
class MigrateFromCosIdSegmentsTest {

    @RegisterExtension
    static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);
    @RegisterExtension
    static final ServerExtension<MariaDbServer> MARIADB = new ServerExtension<>(MariaDbServer::started);

    @Test
    void countersOfCosIdsRedisDistributorContinueAboveEveryIdCosIdIssued() {
        URI uri = URI.create(REDIS.server().url());
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()),
                LettuceClientConfiguration.builder().shutdownTimeout(Duration.ZERO).build());
        connections.afterPropertiesSet();
        connections.start();
        try {
            StringRedisTemplate redis = new StringRedisTemplate(connections);
            SpringRedisIdSegmentDistributor orders = new SpringRedisIdSegmentDistributor("shop", "orders", 0, 100, redis);
            SpringRedisIdSegmentDistributor invoices = new SpringRedisIdSegmentDistributor("shop", "invoices", 0, 10, redis);
            SpringRedisIdSegmentDistributor other = new SpringRedisIdSegmentDistributor("other", "orders", 0, 10, redis);
            long[] theirOrders = issue(new DefaultSegmentId(orders), 1_234);
            long[] theirInvoices = issue(new SegmentChainId(invoices), 555);
            issue(new DefaultSegmentId(other), 5);
            assertEquals("cosid:{shop.orders}.adder", orders.getAdderKey());
            long ordersAdder = Long.parseLong(redis.opsForValue().get(orders.getAdderKey()));

            Cli done = Migration.migrate("--from-cosid-segments", REDIS.server().url(), "--legacy-namespace", "shop",
                    "--to-store", REDIS.server().url(), "--namespace", "shop");
            assertTrue(done.out().contains("read redis cosid:{shop.orders}.adder: segment 'orders' issued at most "
                    + ordersAdder), done.out());
            assertTrue(!done.out().contains("other"), "another CosId namespace is left alone: " + done.out());

            Cli all = Migration.migrate("--from-cosid-segments", REDIS.server().url(), "--to-store", REDIS.server().url(),
                    "--namespace", "everything");
            assertTrue(all.out().contains("raised segment 'other.orders' of namespace 'everything'"), all.out());
            assertTrue(all.out().contains("raised segment 'shop.orders' of namespace 'everything' in " + REDIS.server().url()
                    + " from 0 to " + ordersAdder), all.out());

            Cli none = Cli.run("migrate", "--from-cosid-segments", REDIS.server().url(), "--legacy-namespace", "nosuch",
                    "--to-store", REDIS.server().url(), "--namespace", "nosuch");
            assertEquals(1, none.status(), none.err());
            assertTrue(none.err().contains("no CosId segment counter was found in " + REDIS.server().url()
                    + " under namespace 'nosuch': nothing to migrate"), none.err());

            try (LeaseStore store = LeaseStores.open(REDIS.server().url())) {
                assertTrue(store.namespace("nosuch").isEmpty(), "nothing was written for a source without counters");
                long[] ours = ours(store, "shop", "orders");
                assertEquals(ordersAdder + 1, ours[0], "ours continue right above CosId's counter");
                assertNoneRepeatedAllAbove(theirOrders, ours);
                assertNoneRepeatedAllAbove(theirInvoices, ours(store, "shop", "invoices"));
            }
        } finally {
            connections.destroy();
        }
    }

    @Test
    void rowsOfCosIdsJdbcTableContinueAboveEveryIdCosIdIssued() throws Exception {
        String url = MARIADB.server().jdbcUrl();
        CosIdJdbcSegmentTable orders = new CosIdJdbcSegmentTable(url, "shop", "orders", 100).init(0);
        CosIdJdbcSegmentTable tickets = new CosIdJdbcSegmentTable(url, "shop", "tickets", 20).init(5_000);
        long[] theirOrders = issue(new DefaultSegmentId(orders), 1_010);
        long[] theirTickets = issue(new SegmentChainId(tickets), 77);

        Cli done = Migration.migrate("--from-cosid-segments", url, "--legacy-namespace", "shop",
                "--to-store", url, "--namespace", "shop");
        assertTrue(done.out().contains("read cosid row 'shop.orders': segment 'orders' issued at most"), done.out());

        try (LeaseStore store = LeaseStores.open(url)) {
            assertNoneRepeatedAllAbove(theirOrders, ours(store, "shop", "orders"));
            assertNoneRepeatedAllAbove(theirTickets, ours(store, "shop", "tickets"));
        }
    }

    private static long[] issue(SegmentId ids, int count) {
        long[] issued = new long[count];
        for (int i = 0; i < count; i++) {
            issued[i] = ids.generate();
        }
        return issued;
    }

    private static long[] ours(LeaseStore store, String namespace, String name) {
        LongStream.Builder ids = LongStream.builder();
        for (int i = 0; i < 10; i++) {
            SegmentRange range = store.reserveSegment(namespace, name, 300);
            LongStream.rangeClosed(range.first(), range.last()).forEach(ids);
        }
        return ids.build().toArray();
    }

    private static void assertNoneRepeatedAllAbove(long[] theirs, long[] ours) {
        long[] sorted = theirs.clone();
        Arrays.sort(sorted);
        assertEquals(0, LongStream.of(ours).filter(id -> Arrays.binarySearch(sorted, id) >= 0).count(),
                "ids CosId had issued");
        assertTrue(LongStream.of(ours).min().orElseThrow() > sorted[sorted.length - 1], "ours lie above CosId's");
    }
}
