package dev.cosid.bench.http;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/** The JDK's com.sun.net.httpserver with a fixed pool of platform threads. */
final class JdkCandidate {
    static void start(int port) throws Exception {
        // without TCP_NODELAY, headers and body leave in two segments and delayed ACKs add 40 ms
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
        server.createContext("/", exchange -> {
            byte[] body = Candidates.answer(exchange.getRequestURI().getPath(), exchange.getRequestURI().getRawQuery());
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        });
        int threads = Integer.getInteger("threads", Runtime.getRuntime().availableProcessors() * 2);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
    }
}
