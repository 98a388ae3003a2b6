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
        // the promoted standby has no standby of its own: a URL that requires synchronous commits refuses its
        // writes until one joins, so this test of the records it kept names the asynchronous behaviour
        return PAIR.server().jdbcUrl() + "&allowRepeatedIdsOnPartition=true";
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
