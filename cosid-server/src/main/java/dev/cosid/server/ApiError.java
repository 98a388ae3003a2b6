package dev.cosid.server;

import java.util.Map;

/**
 * A request the server refuses: the status, a stable code for programs, a message naming the value,
 * and any header the status calls for ({@code Allow}, {@code WWW-Authenticate}, {@code Retry-After}).
 */
final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient Map<String, String> headers;

    ApiError(int status, String code, String message) {
        this(status, code, message, Map.of());
    }

    ApiError(int status, String code, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.headers = Map.copyOf(headers);
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }

    Map<String, String> headers() {
        return headers;
    }
}
