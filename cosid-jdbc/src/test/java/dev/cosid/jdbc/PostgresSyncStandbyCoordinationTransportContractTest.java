package dev.cosid.jdbc;

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
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transport contract through a URL naming a PostgreSQL primary and its synchronous standby: every write is
 * checked and confirmed as the id store's are. A write the standby did not confirm fails and is no fence; a
 * failover keeps every confirmed mint, so the promoted primary never hands a fence out twice.
 */
class PostgresSyncStandbyCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(true));

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(PAIR.server().jdbcUrl());
    }

    @Test
    void aLeaseWriteTheFrozenStandbyDidNotConfirmFailsWithinTheBoundAndIsNotAFence() {
        MemberId a = MemberId.of("a");
        FencingToken token = transport.acquireEpoch(role);
        transport.writeLease(role, token, new Lease(a, token, 1_000, 31_000));
        PAIR.server().standby().pause();
        CoordinationException refused;
        try {
            refused = assertThrows(CoordinationException.class,
                    () -> transport.writeLease(role, token, new Lease(a, token, 11_000, 41_000)));
        } finally {
            PAIR.server().standby().resume();
        }
        assertFalse(refused instanceof FencedException, refused.toString());
        assertTrue(refused.getMessage().contains("no synchronous standby confirmed it"), refused.getMessage());
        PAIR.server().awaitStandbyCaughtUp();
        Lease renewed = transport.writeLease(role, token, new Lease(a, token, 21_000, 51_000));
        assertEquals(Optional.of(renewed), RoleStateBuilder.fold(role, transport.readRoleRecords(role)).lease());
    }

    @Test
    void aFailoverKeepsEveryConfirmedMintSoTheNextTokenIsGreaterThanAllOfThem() {
        FencingToken last = null;
        for (int i = 0; i < 5; i++) {
            last = transport.acquireEpoch(role);
        }
        PAIR.server().failover();
        try (CoordinationTransport promoted = CoordinationTransports.open(PAIR.server().jdbcUrl())) {
            assertEquals(Optional.of(last), promoted.describe(role), "the promoted standby has every confirmed mint");
            assertTrue(promoted.acquireEpoch(role).supersedes(last));
        } finally {
            PAIR.server().rejoin();
        }
    }
}
