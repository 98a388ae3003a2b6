package dev.cosid.server;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** One answer of the API: the status, the body and its type, and any headers beside the usual ones. */
record Response(int status, String contentType, byte[] body, Map<String, String> headers) {

    static final String JSON = "application/json";

    static Response json(int status, String json) {
        return new Response(status, JSON, json.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Response text(int status, String contentType, String text) {
        return new Response(status, contentType, text.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Response error(ApiError error) {
        String body = new Json(96 + error.getMessage().length()).begin()
                .field("status", error.status())
                .field("error", error.code())
                .field("message", error.getMessage())
                .end().toString();
        return new Response(error.status(), JSON, body.getBytes(StandardCharsets.UTF_8), error.headers());
    }
}
