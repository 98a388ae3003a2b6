package dev.cosid.coordination.kafka.fence;

/** The JDBC fence on an in-memory H2 database (row locks, MVCC). */
class H2JdbcFenceTest extends JdbcFenceContract {

    private final String url = "jdbc:h2:mem:fence-" + System.identityHashCode(this) + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";

    @Override
    protected String url() {
        return url;
    }
}
