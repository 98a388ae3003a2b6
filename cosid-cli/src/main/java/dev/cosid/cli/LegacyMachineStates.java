package dev.cosid.cli;

import dev.cosid.lease.LeaseStores;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
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
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads the machine state that CosId 2.x/3.x left behind: local files holding {@code machineId|lastTimeStamp},
 * the JDBC table {@code cosid_machine}, and the Redis hashes {@code cosid:{ns}:itc_idx}.
 */
final class LegacyMachineStates {

    /** Timestamps below this are seconds, not milliseconds (it is 1973 in milliseconds). */
    private static final long SECONDS_BELOW = 100_000_000_000L;

    /** One machine's last timestamp and where it was read. */
    record MachineState(String source, int machineId, long lastTimestampMillis) {
    }

    private LegacyMachineStates() {
    }

    static long millis(long timestamp) {
        return timestamp < SECONDS_BELOW ? timestamp * 1000 : timestamp;
    }

    static MachineState parse(String source, String text) {
        String[] parts = text.trim().split("\\|");
        if (parts.length != 2) {
            throw new IllegalArgumentException(source + " holds '" + abbreviate(text.trim())
                    + "', not machineId|lastTimeStamp");
        }
        try {
            return new MachineState(source, Integer.parseInt(parts[0].trim()), millis(Long.parseLong(parts[1].trim())));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " holds '" + abbreviate(text.trim())
                    + "', not machineId|lastTimeStamp with two numbers");
        }
    }

    /** Reads one file, or every regular file of a directory such as {@code ~/.cosid-machine-state}. */
    static List<MachineState> fromFiles(Path path) {
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
            try {
                states.add(parse("file " + file, Files.readString(file, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        if (states.isEmpty()) {
            throw new IllegalArgumentException("the directory " + path + " holds no machine state files");
        }
        return states;
    }

    /** Reads {@code cosid_machine}, of one namespace or of all. */
    static List<MachineState> fromJdbc(String url, String namespace) {
        String sql = "SELECT namespace, machine_id, last_timestamp FROM cosid_machine"
                + (namespace == null ? "" : " WHERE namespace = ?");
        List<MachineState> states = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url);
             PreparedStatement select = connection.prepareStatement(sql)) {
            if (namespace != null) {
                select.setString(1, namespace);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    states.add(new MachineState("cosid_machine row of namespace '" + rows.getString(1) + "'",
                            rows.getInt(2), millis(rows.getLong(3))));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read cosid_machine from " + LeaseStores.redact(url) + ": "
                    + e.getMessage(), e);
        }
        return states;
    }

    /** Reads the hashes {@code cosid:{ns}:itc_idx}, of one namespace or, by SCAN, of all. */
    static List<MachineState> fromRedis(String url, String namespace) {
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
            List<String> keys = new ArrayList<>();
            if (namespace != null) {
                keys.add("cosid:{" + namespace + "}:itc_idx");
            } else {
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    KeyScanCursor<String> page = connection.sync().scan(cursor, ScanArgs.Builder.matches("cosid:*:itc_idx"));
                    keys.addAll(page.getKeys());
                    cursor = page;
                } while (!cursor.isFinished());
            }
            List<MachineState> states = new ArrayList<>();
            for (String key : keys) {
                for (Map.Entry<String, String> entry : connection.sync().hgetall(key).entrySet()) {
                    states.add(parse("redis " + key + " field " + entry.getKey(), entry.getValue()));
                }
            }
            return states;
        } catch (RedisException e) {
            throw new IllegalStateException("cannot read machine state from " + LeaseStores.redact(url) + ": "
                    + e.getMessage(), e);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    private static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }
}
