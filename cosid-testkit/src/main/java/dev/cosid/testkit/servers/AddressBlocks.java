package dev.cosid.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The private address blocks the networks of the tests use: blocks of 16 addresses in {@code 10.231.0.0/16}, each
 * locked in a file under the temporary directory for as long as one network uses it, so that test JVMs side by
 * side never share one, and never a block of which an address is on an interface of this machine already.
 */
final class AddressBlocks {

    /** The private /16 the blocks are taken from. */
    static final String PREFIX = "10.231.";
    /** Blocks of 16 addresses in the /16. */
    private static final int BLOCKS = 4096;
    private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "cosid-test-nets");
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(20);

    /**
     * One locked block.
     *
     * @param number the block's number, 16 to 4095
     * @param lock its lock, held until {@link #release()}
     */
    record Block(int number, FileLock lock) {

        /**
         * Returns an address of the block.
         *
         * @param offset 0 to 15
         * @return {@code 10.231.x.y}
         */
        String address(int offset) {
            if (offset < 0 || offset > 15) {
                throw new IllegalArgumentException("offset " + offset + " is not between 0 and 15");
            }
            return PREFIX + number / 16 + "." + ((number % 16) * 16 + offset);
        }

        /** Gives the block back. */
        void release() {
            try {
                lock.channel().close();
            } catch (IOException ignored) {
                // the lock goes with the JVM
            }
        }
    }

    private AddressBlocks() {
    }

    /**
     * Locks blocks that no other network of this machine uses.
     *
     * @param count how many
     * @return the blocks, each locked
     */
    static synchronized List<Block> lock(int count) {
        try {
            Files.createDirectories(LOCKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String used = ServerProcess.run(List.of("ip", "-o", "-4", "addr"), COMMAND_BOUND, true);
        List<Block> blocks = new ArrayList<>();
        int start = (int) (ProcessHandle.current().pid() % BLOCKS);
        for (int i = 0; i < BLOCKS && blocks.size() < count; i++) {
            int block = (start + i) % BLOCKS;
            if (block / 16 == 0) {
                continue; // 10.231.0.x: the first /24 is left alone
            }
            if (usedIn(used, block)) {
                continue; // an address of this block is on an interface of this machine already
            }
            FileLock lock = tryLock(block);
            if (lock != null) {
                blocks.add(new Block(block, lock));
            }
        }
        if (blocks.size() < count) {
            blocks.forEach(Block::release);
            throw new IllegalStateException("no " + count + " free address blocks in " + PREFIX + "0.0/16");
        }
        return blocks;
    }

    private static boolean usedIn(String addresses, int block) {
        for (int host = 0; host < 16; host++) {
            if (addresses.contains(" " + PREFIX + block / 16 + "." + ((block % 16) * 16 + host) + "/")) {
                return true;
            }
        }
        return false;
    }

    private static FileLock tryLock(int block) {
        try {
            FileChannel channel = FileChannel.open(LOCKS.resolve(Integer.toString(block)), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
            }
            return lock;
        } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
            return null;
        }
    }
}
