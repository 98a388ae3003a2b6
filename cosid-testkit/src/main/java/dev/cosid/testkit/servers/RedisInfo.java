package dev.cosid.testkit.servers;

/**
 * Reads the fields of a Redis {@code INFO} answer that tell whether a replica is ready for a test: its link
 * to the primary up, no sync or load under way, no rewrite of its append-only file running (whose disk
 * writes can hold an {@code appendfsync always} replica's acknowledgement back for hundreds of
 * milliseconds), and the primary counting it online at the primary's own replication offset.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * boolean ready = RedisInfo.replicaCaughtUp(replica.ask("INFO\r\nQUIT\r\n", -1), primary.ask("INFO\r\nQUIT\r\n", -1), port);
 * }</pre>
 */
final class RedisInfo {

    private RedisInfo() {
    }

    /** The command that asks a server for the sections this class reads, then closes the connection. */
    static final String INFO = "INFO\r\nQUIT\r\n";

    /**
     * Reports whether a replica has caught up with its primary and is idle enough to acknowledge at once.
     *
     * @param replicaInfo the replica's {@code INFO} answer, read after the primary's
     * @param primaryInfo the primary's {@code INFO} answer, read first
     * @param replicaPort the replica's port, as the primary lists it
     * @return true when a write to the primary now reaches the replica and is acknowledged promptly
     */
    static boolean replicaCaughtUp(String replicaInfo, String primaryInfo, int replicaPort) {
        if (!"up".equals(field(replicaInfo, "master_link_status:"))
                || !"0".equals(field(replicaInfo, "master_sync_in_progress:"))
                || !"0".equals(field(replicaInfo, "loading:"))
                || !"0".equals(field(replicaInfo, "aof_rewrite_in_progress:"))
                || !"0".equals(field(replicaInfo, "aof_rewrite_scheduled:"))) {
            return false;
        }
        // the primary's own offset, read before the replica's: a replica at or past it has every write made
        // before this check. Its acknowledged offset in the primary's list moves only once a second, so it
        // would rarely equal the primary's offset while clients write; only its online state is asked for
        String primaryOffset = field(primaryInfo, "master_repl_offset:");
        String replicaOffset = field(replicaInfo, "slave_repl_offset:");
        if (primaryOffset == null || replicaOffset == null
                || !primaryInfo.contains("port=" + replicaPort + ",state=online,")) {
            return false;
        }
        return Long.parseLong(replicaOffset) >= Long.parseLong(primaryOffset);
    }

    /**
     * Returns the replication fields of an {@code INFO} answer on one line, for a message.
     *
     * @param info the answer
     * @return its role, link, sync, loading, AOF rewrite, offsets and replicas
     */
    static String brief(String info) {
        StringBuilder text = new StringBuilder();
        for (String name : new String[] {"role:", "master_link_status:", "master_sync_in_progress:", "loading:",
                "aof_rewrite_in_progress:", "aof_rewrite_scheduled:", "master_repl_offset:", "slave_repl_offset:",
                "slave0:", "slave1:"}) {
            String value = field(info, name);
            if (value != null) {
                text.append(name).append(value).append(' ');
            }
        }
        return text.length() == 0 ? "(no answer)" : text.toString().trim();
    }

    /**
     * Returns the value of one {@code name:value} line of an {@code INFO} answer.
     *
     * @param info the answer
     * @param name the field name with its colon, such as {@code master_repl_offset:}
     * @return the value, or null when the answer has no such field
     */
    static String field(String info, String name) {
        int at = info.indexOf("\n" + name);
        if (at < 0) {
            return null;
        }
        int start = at + 1 + name.length();
        int end = info.indexOf('\r', start);
        return info.substring(start, end < 0 ? info.length() : end).trim();
    }
}
