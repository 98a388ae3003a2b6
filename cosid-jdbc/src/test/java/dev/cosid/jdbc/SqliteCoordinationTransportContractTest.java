package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The transport contract on an SQLite file, opened by its store URL. */
class SqliteCoordinationTransportContractTest extends CoordinationTransportContract {

    @TempDir
    static Path dir;

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open("sqlite:" + dir.resolve("leader.db"));
    }
}
