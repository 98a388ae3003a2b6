package dev.cosid.cli;

import java.io.PrintStream;
import java.io.Writer;
import java.util.List;

/**
 * The error stream of the command line: each line has every secret of the store URLs given on the
 * command line masked before it is written, whoever wrote it (a driver's message that echoes a URL too).
 */
final class MaskedLines extends Writer {

    private final PrintStream target;
    private final List<String> urls;
    private final StringBuilder line = new StringBuilder();

    MaskedLines(PrintStream target, List<String> urls) {
        this.target = target;
        this.urls = List.copyOf(urls);
    }

    @Override
    public synchronized void write(char[] chars, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            line.append(chars[i]);
            if (chars[i] == '\n') {
                emit();
            }
        }
    }

    @Override
    public synchronized void flush() {
        if (line.length() > 0) {
            emit();
        }
        target.flush();
    }

    @Override
    public void close() {
        flush();
    }

    private void emit() {
        String text = line.toString();
        line.setLength(0);
        for (String url : urls) {
            text = dev.cosid.lease.LeaseStores.mask(text, url);
        }
        target.print(text);
    }
}
