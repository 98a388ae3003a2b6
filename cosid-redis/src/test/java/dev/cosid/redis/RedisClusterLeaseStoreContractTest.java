package dev.cosid.redis;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.ServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a Redis Cluster of three primaries and three replicas, opened by URL. */
class RedisClusterLeaseStoreContractTest extends LeaseStoreContract {

    static {
        QuietLettuce.install();
    }

    @RegisterExtension
    static final ServerExtension<RedisCluster> CLUSTER = new ServerExtension<>(RedisCluster::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(CLUSTER.server().url());
    }

    /** Runs commands on the cluster with a client of the test's own. */
    static void cluster(RedisCluster cluster, Consumer<RedisAdvancedClusterCommands<String, String>> work) {
        List<io.lettuce.core.RedisURI> seeds = RedisClusterStores.seeds(cluster.url(), "test");
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            work.accept(connection.sync());
        } finally {
            client.shutdown();
        }
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) {
        cluster(CLUSTER.server(), commands -> commands.del("cosid:{" + namespace + "}:namespace"));
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) {
        cluster(CLUSTER.server(), commands -> commands.hdel("cosid:{" + namespace + "}:slots",
                Integer.toString(slot)));
    }

    static String ports(RedisCluster cluster) {
        return cluster.ports().stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
