package dev.cosid;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The exclusive lock a running static slot holds on its state file, so that a second process given the
 * same file is refused instead of issuing the same ids. The lock is taken on a sibling file
 * {@code STATE.lock} (the state file itself is replaced by each write), which names its holder.
 *
 * <p>The operating system drops the lock when its process dies, so a crash never leaves it held. Within
 * one JVM every lock goes through this class: closing any channel on a locked file can drop the
 * process's lock on it, so a refused second runtime never opens the file at all.
 */
final class StateFileLock implements AutoCloseable {

    /** The locks this JVM holds, by lock file. */
    private static final Map<Path, StateFileLock> HELD = new HashMap<>();

    private final Path lockFile;
    private final FileChannel channel;
    private final FileLock lock;
    private final String holder;

    private StateFileLock(Path lockFile, FileChannel channel, FileLock lock, String holder) {
        this.lockFile = lockFile;
        this.channel = channel;
        this.lock = lock;
        this.holder = holder;
    }

    /** Returns the lock file of a (resolved) state file. */
    static Path lockFileOf(Path stateFile) {
        return stateFile.resolveSibling(stateFile.getFileName() + ".lock");
    }

    /**
     * Takes the lock of a state file or refuses, naming the holder.
     *
     * @param stateFile the resolved state file
     * @param owner this runtime's owner, written into the lock file
     * @param nowMillis the clock, written into the lock file
     * @return the held lock
     * @throws StateFileException when another process or runtime holds it, or it cannot be taken
     */
    static StateFileLock acquire(Path stateFile, String owner, long nowMillis) {
        Path lockFile = lockFileOf(stateFile);
        synchronized (HELD) {
            StateFileLock mine = HELD.get(lockFile);
            if (mine != null) {
                throw inUse(stateFile, "another runtime of this process (" + mine.holder + ")");
            }
            FileChannel channel = null;
            try {
                Files.createDirectories(lockFile.getParent());
                channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    lock = null;
                }
                if (lock == null) {
                    String other = read(channel);
                    channel.close();
                    throw inUse(stateFile, "another process (" + (other.isEmpty() ? "its pid is not written yet" : other)
                            + ")");
                }
                String holder = "pid " + ProcessHandle.current().pid() + ", owner " + owner + ", since "
                        + Instant.ofEpochMilli(nowMillis);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)), 0);
                channel.force(false);
                StateFileLock held = new StateFileLock(lockFile, channel, lock, holder);
                HELD.put(lockFile, held);
                return held;
            } catch (IOException e) {
                if (channel != null) {
                    try {
                        channel.close();
                    } catch (IOException ignored) {
                        // the lock was not taken; nothing else to undo
                    }
                }
                throw new StateFileException("cannot lock the state file " + stateFile + " through " + lockFile + ": "
                        + e + ". Give this process write access to the state file's directory", e);
            }
        }
    }

    private static StateFileException inUse(Path stateFile, String whom) {
        return new StateFileException("the state file " + stateFile + " is in use by " + whom + ": two runtimes on "
                + "one static slot would issue the same ids. Stop the other one, or give each its own slot and "
                + "state file", null);
    }

    private static String read(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(512);
        channel.read(buffer, 0);
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip();
    }

    /** Releases the lock; the lock file stays. Idempotent. */
    @Override
    public void close() {
        synchronized (HELD) {
            if (HELD.get(lockFile) != this) {
                return;
            }
            HELD.remove(lockFile);
            try {
                lock.release();
                channel.close();
            } catch (IOException e) {
                // closing the channel drops the lock in any case
            }
        }
    }
}
