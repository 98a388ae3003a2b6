package dev.cosid.bench.http;

import io.undertow.Undertow;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;

/** Undertow core, answering on its IO threads. */
final class UndertowCandidate {
    static void start(int port) {
        Undertow.builder().addHttpListener(port, "127.0.0.1").setHandler(exchange -> {
            byte[] body = Candidates.answer(exchange.getRequestPath(), exchange.getQueryString());
            exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
            if (body == null) {
                exchange.setStatusCode(404);
                exchange.endExchange();
            } else {
                exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, body.length);
                exchange.getResponseSender().send(ByteBuffer.wrap(body));
            }
        }).build().start();
    }
}
