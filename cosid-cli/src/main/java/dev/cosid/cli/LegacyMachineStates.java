package dev.cosid.cli;

import dev.cosid.lease.LeaseStores;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;

/**
 * Reads the machine state that CosId 2.x/3.x left behind, as its distributors write it.
 *
 * <ul>
 *   <li>Local files ({@code LocalMachineStateStorage}, {@code ~/.cosid-machine-state}): one file per
 *       instance, named by the Base64 of {@code namespace__instanceId} (from CosId 3.1.0:
 *       {@code v2.<namespace>.<instanceId>.<stable>}, parts in URL-safe Base64), holding {@code machineId|lastTimeStamp}.
 *       Every distributor keeps one; the guarder rewrites it each minute and on shutdown.</li>
 *   <li>Redis ({@code cosid-spring-redis}): the hash {@code cosid:{ns}:itc_idx} (instance to
 *       {@code machineId|lastStamp}) for running or crashed instances, and the hash {@code cosid:{ns}:revert}
 *       (machine id to last timestamp), where a clean shutdown moves an instance.</li>
 *   <li>JDBC ({@code cosid-jdbc}): the table {@code cosid_machine}; a clean shutdown empties
 *       {@code instance_id} and keeps {@code last_timestamp}.</li>
 *   <li>ZooKeeper ({@code cosid-zookeeper}): {@code /cosid/{ns}/__itc_idx/{instanceId}} and, after a clean
 *       shutdown, {@code /cosid/{ns}/__revert/{machineId}}, both holding {@code machineId|lastStamp}.</li>
 * </ul>
 */
final class LegacyMachineStates {

    /** Timestamps below this are seconds, not milliseconds (it is 1973 in milliseconds). */
    private static final long SECONDS_BELOW = 100_000_000_000L;
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    /**
     * One machine's last timestamp and where it was read.
     *
     * @param source where it was read, for the operator
     * @param machineId the CosId machine id
     * @param lastTimestampMillis the last timestamp CosId recorded, in milliseconds
     */
    record MachineState(String source, int machineId, long lastTimestampMillis) {
    }

    private LegacyMachineStates() {
    }

    static long millis(long timestamp) {
        return timestamp < SECONDS_BELOW ? timestamp * 1000 : timestamp;
    }

    /** Parses {@code machineId|lastTimeStamp}, the form of CosId's {@code MachineState.toStateString()}. */
    static MachineState parse(String source, String text) {
        String[] parts = text.trim().split("\\|", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException(source + " holds '" + abbreviate(text.trim())
                    + "', not machineId|lastTimeStamp");
        }
        int machineId;
        try {
            machineId = Integer.parseInt(parts[0].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " holds '" + abbreviate(text.trim())
                    + "', not machineId|lastTimeStamp with two numbers");
        }
        return state(source, machineId, parts[1]);
    }

    /** Builds a state from a machine id and a timestamp's text, refusing what CosId never writes. */
    static MachineState state(String source, int machineId, String timestamp) {
        long value;
        try {
            value = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " holds the last timestamp '" + abbreviate(timestamp.trim())
                    + "', not a number");
        }
        if (machineId < 0) {
            throw new IllegalArgumentException(source + " holds the machine id " + machineId + ", below 0");
        }
        if (value < 0) {
            throw new IllegalArgumentException(source + " holds the last timestamp " + value + ", below 0");
        }
        return new MachineState(source, machineId, millis(value));
    }

    /**
     * Reads one file, or every regular file of a directory such as {@code ~/.cosid-machine-state}; with a
     * namespace, only the files CosId named for it.
     */
    static List<MachineState> fromFiles(Path path, String namespace) {
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("machine state " + path + " does not exist");
        }
        List<Path> files;
        try (Stream<Path> listing = Files.isDirectory(path) ? Files.list(path) : Stream.of(path)) {
            files = listing.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + path, e);
        }
        List<MachineState> states = new ArrayList<>();
        for (Path file : files) {
            Optional<String[]> named = instanceOf(file.getFileName().toString());
            if (namespace != null && (named.isEmpty() || !named.get()[0].equals(namespace))) {
                continue;
            }
            String source = "file " + file + named.map(n -> " (namespace '" + n[0] + "', instance '" + n[1] + "')")
                    .orElse("");
            try {
                states.add(parse(source, Files.readString(file, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        if (states.isEmpty()) {
            throw new IllegalArgumentException(path + " holds no machine state file"
                    + (namespace == null ? "" : " of namespace '" + namespace + "'"));
        }
        return states;
    }

    /**
     * Decodes CosId's file name: the Base64 of {@code namespace__instanceId} up to CosId 3.0.x, and
     * {@code v2.<namespace>.<instanceId>.<stable>} with URL-safe Base64 parts from 3.1.0 on.
     */
    private static Optional<String[]> instanceOf(String fileName) {
        try {
            String[] parts = fileName.split("\\.", -1);
            if (parts.length == 4 && parts[0].equals("v2")) {
                Base64.Decoder decoder = Base64.getUrlDecoder();
                return Optional.of(new String[] {new String(decoder.decode(parts[1]), StandardCharsets.UTF_8),
                        new String(decoder.decode(parts[2]), StandardCharsets.UTF_8)});
            }
            String decoded = new String(Base64.getDecoder().decode(fileName), StandardCharsets.UTF_8);
            int split = decoded.indexOf("__");
            return split > 0 ? Optional.of(new String[] {decoded.substring(0, split), decoded.substring(split + 2)})
                    : Optional.empty();
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }

    /** Reads {@code cosid_machine}, of one namespace or of all. */
    static List<MachineState> fromJdbc(String url, String namespace) {
        String sql = "SELECT name, machine_id, last_timestamp, instance_id FROM cosid_machine"
                + (namespace == null ? "" : " WHERE namespace = ?") + " ORDER BY name";
        List<MachineState> states = new ArrayList<>();
        DriverManager.setLoginTimeout(CONNECT_TIMEOUT_MILLIS / 1000);
        // the MariaDB driver, which also serves MySQL, takes only its own scheme
        String driverUrl = url.regionMatches(true, 0, "jdbc:mysql:", 0, 11) ? "jdbc:mariadb:" + url.substring(11) : url;
        try (Connection connection = DriverManager.getConnection(driverUrl);
             PreparedStatement select = connection.prepareStatement(sql)) {
            if (namespace != null) {
                select.setString(1, namespace);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String instance = rows.getString(4);
                    String source = "cosid_machine row '" + rows.getString(1) + "' ("
                            + (instance == null || instance.isEmpty() ? "released" : "instance '" + instance + "'") + ")";
                    states.add(state(source, rows.getInt(2), rows.getString(3)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read cosid_machine from " + LeaseStores.redact(url) + ": "
                    + LeaseStores.redact(String.valueOf(e.getMessage())), e);
        }
        return states;
    }

    /**
     * Reads the hashes {@code cosid:{ns}:itc_idx} and {@code cosid:{ns}:revert}, of one namespace or, by
     * SCAN, of all.
     */
    static List<MachineState> fromRedis(String url, String namespace) {
        RedisURI uri;
        try {
            uri = RedisURI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + LeaseStores.redact(url) + "' is not a Redis URL: " + e.getMessage());
        }
        uri.setTimeout(Duration.ofMillis(CONNECT_TIMEOUT_MILLIS));
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
            RedisCommands<String, String> redis = connection.sync();
            Set<String> keys = new LinkedHashSet<>();
            if (namespace != null) {
                // 2.x wraps the namespace in a hash tag; older versions did not
                for (String ns : List.of("{" + namespace + "}", namespace)) {
                    keys.add("cosid:" + ns + ":itc_idx");
                    keys.add("cosid:" + ns + ":revert");
                }
            } else {
                keys.addAll(scan(redis, "cosid:*:itc_idx"));
                keys.addAll(scan(redis, "cosid:*:revert"));
            }
            List<MachineState> states = new ArrayList<>();
            for (String key : keys) {
                Map<String, String> hash = redis.hgetall(key);
                for (Map.Entry<String, String> entry : new java.util.TreeMap<>(hash).entrySet()) {
                    String source = "redis " + key + " field " + entry.getKey();
                    if (key.endsWith(":revert")) {
                        states.add(state(source + " (released)", machineId(source, entry.getKey()), entry.getValue()));
                    } else {
                        states.add(parse(source, entry.getValue()));
                    }
                }
            }
            return states;
        } catch (RedisException e) {
            throw new IllegalStateException("cannot read machine state from " + LeaseStores.redact(url) + ": "
                    + LeaseStores.redact(String.valueOf(e.getMessage())), e);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    private static List<String> scan(RedisCommands<String, String> redis, String pattern) {
        List<String> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
            keys.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        keys.sort(null);
        return keys;
    }

    /**
     * Reads {@code /cosid/{ns}/__itc_idx/*} and {@code /cosid/{ns}/__revert/*}, of one namespace or of
     * all; the URL is {@code zookeeper://host:port[,host:port...][/chroot]}.
     */
    static List<MachineState> fromZooKeeper(String url, String namespace) {
        if (!url.startsWith("zookeeper://") || url.length() == "zookeeper://".length()
                || url.startsWith("zookeeper:///")) {
            throw new IllegalArgumentException("'" + LeaseStores.redact(url)
                    + "' is not a ZooKeeper URL; use zookeeper://host:port[/chroot]");
        }
        String connectString = url.substring("zookeeper://".length());
        try (CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connectString)
                .connectionTimeoutMs(CONNECT_TIMEOUT_MILLIS).sessionTimeoutMs(10_000)
                .retryPolicy(new RetryNTimes(2, 200)).build()) {
            client.start();
            if (!client.blockUntilConnected(CONNECT_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("cannot reach " + LeaseStores.redact(url) + " within "
                        + CONNECT_TIMEOUT_MILLIS + " ms");
            }
            List<String> namespaces = namespace != null ? List.of(namespace) : children(client, "/cosid");
            List<MachineState> states = new ArrayList<>();
            for (String ns : namespaces) {
                for (String folder : List.of("__itc_idx", "__revert")) {
                    String parent = "/cosid/" + ns + "/" + folder;
                    for (String child : children(client, parent)) {
                        Optional<byte[]> data = data(client, parent + "/" + child);
                        String source = "zookeeper " + parent + "/" + child
                                + (folder.equals("__revert") ? " (released)" : "");
                        data.ifPresent(bytes -> states.add(parse(source, new String(bytes, StandardCharsets.UTF_8))));
                    }
                }
            }
            return states;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + LeaseStores.redact(url), e);
        }
    }

    private static List<String> children(CuratorFramework client, String path) {
        try {
            List<String> children = new ArrayList<>(client.getChildren().forPath(path));
            children.sort(null);
            return children;
        } catch (KeeperException.NoNodeException absent) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException("cannot list " + path + ": " + e.getMessage(), e);
        }
    }

    private static Optional<byte[]> data(CuratorFramework client, String path) {
        try {
            return Optional.ofNullable(client.getData().forPath(path));
        } catch (KeeperException.NoNodeException gone) {
            return Optional.empty();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    private static int machineId(String source, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " is not a machine id");
        }
    }

    private static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }
}
