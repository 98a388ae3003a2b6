package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFailoverContract;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL primary SIGKILLed, its asynchronous standby promoted, the two-host URL finds it. */
class PostgresStandbyFailoverTest extends StoreFailoverContract {

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(false));

    @Override
    protected String storeUrl() {
        // an asynchronous standby is refused unless the URL accepts that a partition can repeat ids
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
