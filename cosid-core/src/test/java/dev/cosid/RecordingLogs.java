package dev.cosid;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/** The SLF4J binding of the core tests: it keeps every event of every level, and prints nothing. */
public final class RecordingLogs implements SLF4JServiceProvider {

    /** One logged event: its level, logger, formatted message and throwable. */
    record Event(Level level, String logger, String message, Throwable thrown) {
    }

    private static final List<Event> EVENTS = new CopyOnWriteArrayList<>();
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    /** The number of events logged so far: a mark for {@link #since(int)}. */
    static int count() {
        return EVENTS.size();
    }

    /** The events logged after a mark taken with {@link #count()}. */
    static List<Event> since(int mark) {
        return List.copyOf(EVENTS.subList(mark, EVENTS.size()));
    }

    /** The events logged so far whose message contains a fragment, such as a test's own namespace. */
    static List<Event> containing(String fragment) {
        return EVENTS.stream().filter(event -> event.message().contains(fragment)).toList();
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return Recorder::new;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
    }

    private static final class Recorder extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        Recorder(String name) {
            this.name = name;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                                   Throwable thrown) {
            EVENTS.add(new Event(level, name, MessageFormatter.basicArrayFormat(pattern, arguments), thrown));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }
}
