import dev.cosid.CosIdRuntime;
import dev.cosid.IdParts;
import dev.cosid.SnowflakeId;

/**
 * Prints five ids, each with its time, slot and sequence, from a lease kept in the SQLite file {@code cosid.db} of
 * the working directory. Run it with {@code mvn -q compile exec:java}.
 */
public final class Main {

    /** Opens the runtime, prints five ids and releases the slot. */
    public static void main(String[] args) {
        try (CosIdRuntime runtime = CosIdRuntime.builder()
                .namespace("orders")
                .store("sqlite:cosid.db")                  // a file here; or .store(leaseStore)
                .start()) {
            SnowflakeId ids = runtime.snowflake("order");  // IdLayout.MILLISECOND: 41 + 10 + 12 bits
            for (int i = 0; i < 5; i++) {
                long id = ids.nextId();
                IdParts parts = ids.layout().parse(id);    // time, slot, sequence
                System.out.println(id + " " + parts);
            }
        }
    }
}
