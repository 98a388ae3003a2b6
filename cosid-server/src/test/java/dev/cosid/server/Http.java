package dev.cosid.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** A real HTTP client (the JDK's) pointed at one server, with an optional bearer token. */
final class Http {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client;
    private final URI base;
    private final String token;

    Http(URI base) {
        this(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), base, null);
    }

    Http(HttpClient client, URI base, String token) {
        this.client = client;
        this.base = base;
        this.token = token;
    }

    Http withToken(String bearer) {
        return new Http(client, base, bearer);
    }

    Reply get(String path) {
        return send("GET", path);
    }

    Reply send(String method, String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return send(request.build());
    }

    Reply send(HttpRequest request) {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    URI base() {
        return base;
    }

    /** One answer: status, headers, body. */
    record Reply(int status, java.net.http.HttpHeaders headers, String body) {

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("the body is not JSON: " + body, e);
            }
        }

        Optional<String> header(String name) {
            return headers.firstValue(name);
        }

        String contentType() {
            return header("Content-Type").orElse("");
        }
    }
}
