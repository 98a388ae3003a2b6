package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.RoleStateBuilder;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.RedisSentinelGroup;
import dev.cosid.testkit.servers.ServerExtension;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transport contract through Redis Sentinel (a primary, a replica and three sentinels started by the test),
 * opened by its store URL: every write waits for the replica, as the id store's do.
 */
class RedisSentinelCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<RedisSentinelGroup> GROUP = new ServerExtension<>(RedisSentinelGroup::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(GROUP.server().url());
    }

    /**
     * With the replica frozen a lease write fails within the wait of one second, and not as fenced: the primary
     * applied it, but it does not count, so the holder keeps the lease it had confirmed and retries.
     */
    @Test
    void aLeaseWriteTheReplicaDidNotConfirmFailsWithinTheWaitAndIsNotAFence() {
        MemberId a = MemberId.of("a");
        FencingToken token = transport.acquireEpoch(role);
        Lease confirmed = transport.writeLease(role, token, new Lease(a, token, 1_000, 31_000));
        GROUP.server().pauseReplicas();
        CoordinationException refused;
        try {
            refused = assertThrows(CoordinationException.class,
                    () -> transport.writeLease(role, token, new Lease(a, token, 11_000, 41_000)));
        } finally {
            GROUP.server().resumeReplicas();
        }
        assertFalse(refused instanceof FencedException, refused.toString());
        assertTrue(refused.getMessage().contains("only 0 of 1 replicas"), refused.getMessage());
        GROUP.server().awaitReplicaCaughtUp();
        Lease renewed = transport.writeLease(role, token, new Lease(a, token, 21_000, 51_000));
        assertEquals(Optional.of(renewed), RoleStateBuilder.fold(role, transport.readRoleRecords(role)).lease());
        assertTrue(renewed.deadline() > confirmed.deadline());
    }
}
