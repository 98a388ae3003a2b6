package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFailoverContract;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL primary SIGKILLed, its synchronous standby promoted, the two-host URL finds it. */
class PostgresSyncStandbyFailoverTest extends StoreFailoverContract {

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(true));

    @Override
    protected String storeUrl() {
        // the safe default: the promoted standby streams to no standby, so it is the only copy and takes writes
        return PAIR.server().jdbcUrl();
    }

    @Override
    protected Duration failover() {
        return PAIR.server().failover();
    }

    @Override
    protected void awaitReplicated() {
        PAIR.server().awaitStandbyCaughtUp();
    }

    @Override
    protected void rejoin() {
        PAIR.server().rejoin();
    }
}
