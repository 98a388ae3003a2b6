package dev.cosid.bench.http;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One tiny HTTP server per candidate library, each answering the same two requests:
 * {@code GET /ping} with a constant JSON body, and {@code GET /ids?count=N} with N decimal strings.
 * Run: {@code java -cp 'target/classes:target/lib/*' dev.cosid.bench.http.Candidates jdk|netty|jetty|undertow PORT}.
 */
public final class Candidates {

    static final byte[] PING = "{\"status\":\"UP\"}".getBytes(StandardCharsets.US_ASCII);
    private static final AtomicLong NEXT = new AtomicLong(282061010092396544L);

    private Candidates() {
    }

    /** Answers a path and query; null means 404. */
    static byte[] answer(String path, String query) {
        if (path.equals("/ping")) {
            return PING;
        }
        if (path.equals("/ids")) {
            int count = 1;
            if (query != null && query.startsWith("count=")) {
                count = Integer.parseInt(query.substring(6));
            }
            StringBuilder json = new StringBuilder(32 + count * 22).append("{\"ids\":[");
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    json.append(',');
                }
                json.append('"').append(NEXT.incrementAndGet()).append('"');
            }
            return json.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
        }
        return null;
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        switch (args[0]) {
            case "jdk" -> JdkCandidate.start(port);
            case "netty" -> NettyCandidate.start(port);
            case "jetty" -> JettyCandidate.start(port);
            case "undertow" -> UndertowCandidate.start(port);
            default -> throw new IllegalArgumentException("unknown candidate " + args[0]);
        }
        System.out.println("listening on " + port);
    }
}
