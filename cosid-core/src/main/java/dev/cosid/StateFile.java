package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The state file of a static slot: the ceiling its holder may issue up to, kept across restarts.
 *
 * <p>A write goes to a temporary file in the same directory, is fsynced, atomically renamed over the
 * old file, and the directory is fsynced, so the file on disk is always a whole old or a whole new
 * state. A CRC-32 line detects truncation and damage. Reading never changes the file.
 *
 * <p>A state file that is a symbolic link is read and written through to its target: the new state
 * replaces the target, next to it, and the link stays. A link whose target does not exist is an
 * error, never taken for a missing file. Each id space the slot issued in keeps its layout on a
 * {@code layout.NAME} line (the name URL-encoded), which readers that predate it skip.
 *
 * <pre>{@code
 * # CosId static slot state: the ceiling this slot may issue up to. Do not edit or delete.
 * version=1
 * namespace=orders
 * slot=3
 * ceiling=1796218990169
 * layout.order=1577203200000,1,41,10,12
 * crc32=1a2b3c4d
 * }</pre>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * StateFile.write(path, new StateFile.State("orders", 3, ceiling));
 * Optional<StateFile.State> state = StateFile.read(path);
 * }</pre>
 */
public final class StateFile {

    private static final String HEADER = "# CosId static slot state: the ceiling this slot may issue up to. "
            + "Do not edit or delete.";
    private static final List<String> KEYS = List.of("version", "namespace", "slot", "ceiling");
    private static final String LAYOUT_PREFIX = "layout.";

    private StateFile() {
    }

    /**
     * The content of a state file.
     *
     * @param namespace the namespace of the slot
     * @param slot the static slot
     * @param ceiling the last millisecond the slot may issue; the floor after a restart
     * @param layouts the layout of each id space the slot issued in, by generator name
     */
    public record State(String namespace, int slot, long ceiling, Map<String, LayoutRecord> layouts) {

        /** Copies the layouts, in name order. */
        public State {
            layouts = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(layouts));
        }

        /**
         * Creates a state without layouts.
         *
         * @param namespace the namespace of the slot
         * @param slot the static slot
         * @param ceiling the last millisecond the slot may issue
         */
        public State(String namespace, int slot, long ceiling) {
            this(namespace, slot, ceiling, Map.of());
        }
    }

    /**
     * Returns the file a state-file path stands for: the path itself, or the final target of a symbolic
     * link, which must exist.
     *
     * @param file the configured path
     * @return the path to read, write and lock
     * @throws StateFileException when the path is a symbolic link whose target does not exist
     */
    public static Path resolve(Path file) {
        Path absolute = file.toAbsolutePath();
        if (!Files.isSymbolicLink(absolute)) {
            return absolute;
        }
        try {
            return absolute.toRealPath();
        } catch (IOException e) {
            String target;
            try {
                target = String.valueOf(Files.readSymbolicLink(absolute));
            } catch (IOException unreadable) {
                target = "?";
            }
            throw new StateFileException("the state file " + absolute + " is a symbolic link to " + target
                    + ", which does not exist (" + e.getClass().getSimpleName() + "). A dangling link is not taken "
                    + "for a missing file: the ceiling it should hold may be elsewhere. Point the link at the slot's "
                    + "state file, or remove the link and set not-before past the last id this slot issued", e);
        }
    }

    /**
     * Reads a state file.
     *
     * @param file the file
     * @return its state, or empty when the file does not exist
     * @throws StateFileException when it exists and cannot be read or is not a whole state file
     */
    public static Optional<State> read(Path file) {
        file = resolve(file);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException missing) {
            return Optional.empty();
        } catch (AccessDeniedException denied) {
            throw new StateFileException("cannot read the state file " + file + ": permission denied. Give this "
                    + "process read and write access to it; do not delete it, it holds the ceiling that keeps ids "
                    + "unique across restarts", denied);
        } catch (IOException e) {
            throw new StateFileException("cannot read the state file " + file + ": " + e + ". " + recovery(file), e);
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            throw new StateFileException("the state file " + file + " is empty. " + recovery(file), null);
        }
        List<String> lines = text.lines().collect(java.util.stream.Collectors.toList());
        if (lines.size() == 1 && HEADER.startsWith(lines.get(0))) {
            throw damaged(file, "it ends inside its first line (truncated)");
        }
        if (!lines.get(0).equals(HEADER)) {
            throw new StateFileException("the state file " + file + " is not a CosId state file (it starts with '"
                    + abbreviate(lines.get(0)) + "'). " + recovery(file), null);
        }
        if (!text.endsWith("\n")) {
            throw damaged(file, "its last line is cut off (truncated)");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        StringBuilder covered = new StringBuilder(HEADER).append('\n');
        String crc = null;
        for (String line : lines.subList(1, lines.size())) {
            int equals = line.indexOf('=');
            if (equals < 0) {
                throw damaged(file, "the line '" + abbreviate(line) + "' is not key=value (truncated or edited)");
            }
            String key = line.substring(0, equals);
            if (key.equals("crc32")) {
                crc = line.substring(equals + 1);
                break;
            }
            fields.put(key, line.substring(equals + 1));
            covered.append(line).append('\n');
        }
        if (crc == null) {
            throw damaged(file, "it ends before its crc32 line (truncated)");
        }
        if (!crc.equals(crc32(covered.toString()))) {
            throw damaged(file, "its crc32 " + crc + " does not match its content " + crc32(covered.toString()));
        }
        if (!fields.keySet().containsAll(KEYS)) {
            throw damaged(file, "it lacks " + KEYS.stream().filter(k -> !fields.containsKey(k))
                    .collect(java.util.stream.Collectors.toList()));
        }
        if (!fields.get("version").equals("1")) {
            throw damaged(file, "its version " + fields.get("version") + " is not 1");
        }
        Map<String, LayoutRecord> layouts = new LinkedHashMap<>();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (field.getKey().startsWith(LAYOUT_PREFIX)) {
                try {
                    layouts.put(URLDecoder.decode(field.getKey().substring(LAYOUT_PREFIX.length()), StandardCharsets.UTF_8),
                            LayoutRecord.parse(field.getValue()));
                } catch (IllegalArgumentException e) {
                    throw damaged(file, "the line " + abbreviate(field.getKey() + "=" + field.getValue())
                            + " is not a layout: " + e.getMessage());
                }
            }
        }
        try {
            return Optional.of(new State(fields.get("namespace"), Integer.parseInt(fields.get("slot")),
                    Long.parseLong(fields.get("ceiling")), layouts));
        } catch (NumberFormatException e) {
            throw damaged(file, "a number does not parse: " + e.getMessage());
        }
    }

    /**
     * Writes a state file durably: temporary file, fsync, atomic rename, fsync of the directory.
     *
     * @param file the file
     * @param state the state to write
     * @throws StateFileException when the file cannot be written; the old file is then unchanged
     */
    public static void write(Path file, State state) {
        Path absolute = resolve(file);
        Path directory = absolute.getParent();
        StringBuilder text = new StringBuilder(HEADER).append("\nversion=1\nnamespace=").append(state.namespace())
                .append("\nslot=").append(state.slot()).append("\nceiling=").append(state.ceiling()).append('\n');
        for (Map.Entry<String, LayoutRecord> layout : state.layouts().entrySet()) {
            text.append(LAYOUT_PREFIX).append(URLEncoder.encode(layout.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(layout.getValue().text()).append('\n');
        }
        String body = text.toString();
        byte[] bytes = (body + "crc32=" + crc32(body) + "\n").getBytes(StandardCharsets.UTF_8);
        Path temporary = directory.resolve("." + absolute.getFileName() + ".tmp");
        try {
            Files.createDirectories(directory);
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + directory + " cannot rename atomically", e);
            }
            try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new StateFileException("cannot write the state file " + absolute + ": " + e
                    + ". No id is issued past the ceiling already on disk", e);
        }
    }

    private static StateFileException damaged(Path file, String why) {
        return new StateFileException("the state file " + file + " is damaged: " + why + ". " + recovery(file), null);
    }

    private static String recovery(Path file) {
        return "It is left as it is. To recover: stop every process that uses this slot, move " + file
                + " aside, and start again with not-before set past the last id this slot issued (the old file's "
                + "ceiling if you can read it, or the time of the newest id in your data; ./cosid migrate can "
                + "write a new file from such a bound)";
    }

    private static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }

    private static String crc32(String text) {
        CRC32 crc = new CRC32();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }
}
