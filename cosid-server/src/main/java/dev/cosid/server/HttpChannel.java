package dev.cosid.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One connection's requests, answered in order on the connection's event loop; a request that may
 * wait on I/O runs on the blocking executor, and later pipelined requests queue behind it.
 *
 * <p>While the server drains, every answer closes its connection, and an idle connection is closed at once.
 */
final class HttpChannel extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final int MAX_QUEUED = 32;
    private static final HttpHeadersFactory UNCHECKED_HEADERS = DefaultHttpHeadersFactory.headersFactory()
            .withValidation(false);
    private static final AsciiString JSON = AsciiString.cached(Response.JSON);
    private static final AsciiString NOSNIFF_NAME = AsciiString.cached("X-Content-Type-Options");
    private static final AsciiString NOSNIFF = AsciiString.cached("nosniff");

    /** A request reduced to what the API reads, so no buffer is held while it waits. */
    private record Pending(String method, String uri, String authorization, boolean keepAlive,
                           HttpVersion version, boolean bad, String badReason) {
    }

    private final HttpApi api;
    private final Executor blocking;
    private final ServerState state;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean busy;
    private int open;

    HttpChannel(HttpApi api, Executor blocking, ServerState state) {
        this.api = api;
        this.blocking = blocking;
        this.state = state;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        state.requestStarted();
        open++;
        boolean bad = request.decoderResult().isFailure();
        Pending pending = new Pending(request.method().name(), request.uri(),
                request.headers().get(HttpHeaderNames.AUTHORIZATION), HttpUtil.isKeepAlive(request),
                request.protocolVersion(), bad, bad ? reason(request.decoderResult().cause()) : null);
        if (busy) {
            if (queue.size() >= MAX_QUEUED) {
                write(ctx, pending, Response.error(new ApiError(429, "too_many_pipelined", "more than " + MAX_QUEUED
                        + " pipelined requests wait on this connection")), true);
                return;
            }
            queue.add(pending);
            return;
        }
        process(ctx, pending);
    }

    private void process(ChannelHandlerContext ctx, Pending pending) {
        if (pending.bad) {
            write(ctx, pending, Response.error(new ApiError(400, "bad_request", "the request does not parse as "
                    + "HTTP/1.1: " + firstLine(pending.badReason))), true);
            return;
        }
        if (pending.version.majorVersion() != 1) {
            // HTTP/1.0 and 1.1 are served (a later 1.x as 1.1, RFC 9112 2.3); "HTTP/2.0" or "HTTP/0.9" in an
            // HTTP/1 request line is another protocol this server does not speak
            write(ctx, pending, Response.error(new ApiError(505, "http_version_not_supported", pending.version.text()
                    + " is not served here; send HTTP/1.1 or HTTP/1.0")), true);
            return;
        }
        if (!api.blocking(pending.uri)) {
            write(ctx, pending, api.handle(pending.method, pending.uri, pending.authorization), false);
            return;
        }
        busy = true;
        try {
            blocking.execute(() -> {
                Response response = api.handle(pending.method, pending.uri, pending.authorization);
                ctx.executor().execute(() -> {
                    busy = false;
                    write(ctx, pending, response, false);
                    drain(ctx);
                });
            });
        } catch (RejectedExecutionException e) {
            busy = false;
            write(ctx, pending, Response.error(new ApiError(503, "unavailable", "the server is stopping or has "
                    + "too many slot-table reads waiting", Map.of("Retry-After", "1"))), true);
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        while (!busy && !queue.isEmpty()) {
            process(ctx, queue.poll());
        }
    }

    private void write(ChannelHandlerContext ctx, Pending pending, Response response, boolean close) {
        // the server writes every header itself from constants and checked values: no validation per answer
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()), Unpooled.wrappedBuffer(response.body()),
                UNCHECKED_HEADERS, UNCHECKED_HEADERS);
        HttpHeaders headers = out.headers();
        headers.set(HttpHeaderNames.CONTENT_TYPE, response.contentType().equals(Response.JSON) ? JSON
                : response.contentType());
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
        headers.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        headers.set(NOSNIFF_NAME, NOSNIFF);
        response.headers().forEach(headers::set);
        boolean keepAlive = pending.keepAlive && !close && !state.draining();
        if (!keepAlive) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (pending.version.equals(HttpVersion.HTTP_1_0)) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        ChannelFuture written = ctx.writeAndFlush(out);
        written.addListener(done -> {
            open--;
            state.requestFinished();
        });
        if (!keepAlive) {
            dropQueued();
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Forgets pipelined requests that will get no answer: the connection closes before them. */
    private void dropQueued() {
        while (!queue.isEmpty()) {
            queue.poll();
            open--;
            state.requestFinished();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        dropQueued();
        super.channelInactive(ctx);
    }

    /** Closes the connection if no request is being answered; runs on the connection's event loop. */
    void closeIfIdle(io.netty.channel.Channel channel) {
        if (open == 0) {
            channel.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // a reset connection, a TLS handshake a client gave up on: nothing to answer, nothing to tell
        ctx.close();
    }

    private static String reason(Throwable cause) {
        return cause == null || cause.getMessage() == null ? "malformed request" : cause.getMessage();
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        String line = newline < 0 ? text : text.substring(0, newline);
        return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    }
}
