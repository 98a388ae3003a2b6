package dev.cosid.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Standard output that loses nothing silently: it writes whole lines only, remembers the first write
 * failure (a full disk, a closed pipe) and refuses every later write, so a command ends at once instead
 * of exiting 0 with part of its output.
 *
 * <p>Lines are buffered and written in batches that end with a line break. When the disk fills up in
 * the middle of a batch, the part of the last line that reached a regular file is cut off again, so the
 * file ends with a whole line. After {@link #seal()} (the shutdown path on SIGTERM) writes are dropped:
 * what was issued before is on the output in whole lines, and nothing is half written when the JVM halts.
 */
final class Output extends Writer {

    /** Lines are written once this many characters are waiting. */
    private static final int BATCH = 1 << 16;

    private final WritableByteChannel channel;
    private final ReentrantLock mutex = new ReentrantLock();
    private final StringBuilder pending = new StringBuilder(BATCH + 64);
    private volatile IOException failure;
    private boolean sealed;

    private Output(WritableByteChannel channel) {
        this.channel = channel;
    }

    /** The standard output of this process, written through its file channel. */
    static Output of(FileChannel channel) {
        return new Output(channel);
    }

    /** Any stream, for commands run inside a test. */
    static Output of(OutputStream stream) {
        return new Output(Channels.newChannel(stream));
    }

    @Override
    public void write(char[] chars, int offset, int length) throws IOException {
        add(chars, offset, length);
    }

    @Override
    public void write(String text, int offset, int length) throws IOException {
        add(text, offset, length);
    }

    @Override
    public void write(int c) throws IOException {
        add(String.valueOf((char) c), 0, 1);
    }

    private void add(Object text, int offset, int length) throws IOException {
        mutex.lock();
        try {
            if (sealed) {
                return;
            }
            throwIfFailed();
            if (text instanceof char[] chars) {
                pending.append(chars, offset, length);
            } else {
                pending.append((CharSequence) text, offset, offset + length);
            }
            if (pending.length() >= BATCH) {
                drain(false);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Writes every whole line waiting; a line still being written stays until its line break. */
    @Override
    public void flush() throws IOException {
        mutex.lock();
        try {
            if (!sealed) {
                throwIfFailed();
                drain(false);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Writes everything waiting, a last line without a line break too: the command has finished. */
    void finish() throws IOException {
        mutex.lock();
        try {
            if (!sealed) {
                throwIfFailed();
                drain(true);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Writes the whole lines waiting and drops every later write; for the shutdown path, while the
     * command may still be printing. Waits a bounded time for a write in progress.
     */
    void seal() {
        boolean locked;
        try {
            locked = mutex.tryLock(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!locked) {
            return; // a write is stuck on a reader that does not read; it writes whole lines only
        }
        try {
            if (!sealed && failure == null) {
                try {
                    drain(false);
                } catch (IOException ignored) {
                    // remembered in failure; the process is ending anyway
                }
            }
            sealed = true;
        } finally {
            mutex.unlock();
        }
    }

    /** Whether a write failed because the reading end of a pipe was closed (EPIPE). */
    static boolean brokenPipe(IOException failure) {
        return "Broken pipe".equals(failure.getMessage());
    }

    /** The first write failure, if any. */
    Optional<IOException> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public void close() throws IOException {
        finish();
    }

    private void throwIfFailed() throws IOException {
        if (failure != null) {
            throw failure;
        }
    }

    private void drain(boolean all) throws IOException {
        int end = all ? pending.length() : pending.lastIndexOf("\n") + 1;
        if (end == 0) {
            return;
        }
        byte[] bytes = pending.substring(0, end).getBytes(StandardCharsets.UTF_8);
        pending.delete(0, end);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long start = position();
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } catch (IOException e) {
            failure = e;
            cutToLastLine(start, bytes, buffer.position());
            throw e;
        }
    }

    private long position() {
        if (channel instanceof FileChannel file) {
            try {
                return file.position();
            } catch (IOException notSeekable) {
                return -1; // a pipe or a terminal: nothing can be taken back, and a pipe's reader is gone
            }
        }
        return -1;
    }

    /** A full disk took part of a batch: cut a regular file back to the end of its last whole line. */
    private void cutToLastLine(long start, byte[] bytes, int written) {
        if (start < 0 || written == 0 || bytes[written - 1] == '\n') {
            return;
        }
        int keep = written;
        while (keep > 0 && bytes[keep - 1] != '\n') {
            keep--;
        }
        try {
            FileChannel file = (FileChannel) channel;
            if (file.size() > start + keep) {
                file.truncate(start + keep);
            }
        } catch (IOException | RuntimeException cannot) {
            // not a regular file (a device such as /dev/full): nothing to cut
        }
    }
}
