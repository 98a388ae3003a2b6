package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.ServerExtension;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a Redis Cluster of three primaries and three replicas, opened by its store URL. */
class RedisClusterCoordinationTransportContractTest extends CoordinationTransportContract {

    static {
        QuietLettuce.install();
    }

    @RegisterExtension
    static final ServerExtension<RedisCluster> CLUSTER = new ServerExtension<>(RedisCluster::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(CLUSTER.server().url());
    }

    @Test
    void theKeysOfARoleShareOneSlotAndTheRolesOfEveryPrimaryAreListed() {
        Set<Integer> primaries = new HashSet<>();
        Set<Role> made = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            Role spread = Role.of(role.name() + "-" + i + "}x{");
            transport.register(spread, MemberId.of("m"), 1);
            made.add(spread);
            String roleKey = "cosid:{leader:" + spread.name() + "}:role";
            assertEquals(CLUSTER.server().slotOf(roleKey), CLUSTER.server().slotOf("cosid:{leader:" + spread.name()
                    + "}:members"), spread.name());
            primaries.add(CLUSTER.server().primaryOf(roleKey));
        }
        assertTrue(primaries.size() > 1, "the roles lie on several primaries: " + primaries);
        assertTrue(transport.roles().containsAll(made), transport.roles() + " lists " + made);
    }
}
