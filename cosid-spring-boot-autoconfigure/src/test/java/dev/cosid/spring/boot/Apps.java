package dev.cosid.spring.boot;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Starts real web applications on random ports and talks HTTP to them. */
final class Apps {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final JsonMapper JSON = JsonMapper.builder().build();

    private Apps() {
    }

    /** Starts an application; the properties are command-line arguments, above every file. */
    static ConfigurableApplicationContext start(Class<?> application, String... properties) {
        String[] args = new String[properties.length + 1];
        args[0] = "--server.port=0";
        for (int i = 0; i < properties.length; i++) {
            args[i + 1] = "--" + properties[i];
        }
        return new SpringApplicationBuilder(application).run(args);
    }

    static String base(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    // a request bounds its wait for the answer; the first request of an application warms up Hibernate and the
    // servlet stack, which took over 10 s on a 2-core machine under a load of 40
    static HttpResponse<String> get(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    static HttpResponse<String> post(String url, String json) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    /** Issues an id over HTTP and reads it back from its JSON string. */
    static long id(ConfigurableApplicationContext context, String generator) {
        HttpResponse<String> response = get(base(context) + "/ids/" + generator);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET /ids/" + generator + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        JsonNode body = json(response);
        if (!body.get("id").isString()) {
            throw new AssertionError("the id is not a JSON string: " + response.body());
        }
        return Long.parseLong(body.get("id").asString());
    }
}
