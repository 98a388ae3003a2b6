package dev.cosid.server;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.Names;
import dev.cosid.micrometer.CosIdMetrics;
import dev.cosid.time.Clock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An HTTP id service over one {@link CosIdRuntime}, for clients that are not on the JVM.
 *
 * <p>It answers a JSON API under {@code /v1} (issue up to {@value #MAX_COUNT} ids a request, decode an
 * id, the runtime's status, the namespace's slot table), the paths of CosId's cosid-proxy-server
 * ({@code GET /ids}, {@code /ids/{name}}, {@code /ids/as-string}, {@code /ids/as-string/{name}}), segment
 * ids of the namespace's counters in the store (or of the {@link Builder#segments(List) named ones}) at
 * {@code /v1/segments/{name}}, Leaf's
 * {@code /api/segment/get/{key}} and {@code /api/snowflake/get/{key}} (a bare decimal number),
 * {@code /health} (503 while no id can be issued), {@code /metrics} in the Prometheus text format, and
 * a status page at {@code /} that refreshes itself. Every refusal is a JSON body
 * {@code {"status":400,"error":"count_out_of_range","message":"count 0 is outside 1..1000"}}.
 *
 * <p>With a {@link BearerToken} every path but {@code /} and {@code /health} needs
 * {@code Authorization: Bearer TOKEN}. Binding to an address that is not loopback without a token is
 * refused unless {@link Builder#insecureNoToken(boolean)} allows it.
 *
 * <p>{@link #close()} stops accepting, lets the requests in flight finish (up to the grace period), and
 * closes the connections; the caller then closes the runtime, which releases the slot with the exact
 * last issued millisecond. Netty runs the connections: a few event loops answer requests without a
 * thread hop, and only the slot table, which reads the store, runs on a small pool of its own.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store("sqlite:/var/lib/cosid/cosid.db").start();
 *      CosIdServer server = CosIdServer.builder().port(8080).start(runtime)) {
 *     // curl -s 'http://127.0.0.1:8080/v1/ids?count=3'
 *     // {"name":"default","ids":["282061010092396544","282061010092396545","282061010092396546"]}
 *     server.awaitClose();
 * }
 * }</pre>
 */
public final class CosIdServer implements AutoCloseable {

    /** The most ids one request may ask for. */
    public static final int MAX_COUNT = 1000;
    /** The id space {@code /v1/ids} and {@code /ids} issue from unless other names are configured. */
    public static final String DEFAULT_NAME = "default";
    private static final int MAX_REQUEST_BODY = 8192;

    private final Channel serverChannel;
    private final EventLoopGroup group;
    private final ThreadPoolExecutor blocking;
    private final ChannelGroup channels;
    private final ServerState state;
    private final ScheduledFuture<?> sampler;
    private final InetSocketAddress address;
    private final HttpApi api;
    private final boolean tls;
    private final Duration grace;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.CountDownLatch closedLatch = new java.util.concurrent.CountDownLatch(1);

    private CosIdServer(Channel serverChannel, EventLoopGroup group, ThreadPoolExecutor blocking,
                        ChannelGroup channels, ServerState state, ScheduledFuture<?> sampler, HttpApi api,
                        boolean tls, Duration grace) {
        this.serverChannel = serverChannel;
        this.group = group;
        this.blocking = blocking;
        this.channels = channels;
        this.state = state;
        this.sampler = sampler;
        this.address = (InetSocketAddress) serverChannel.localAddress();
        this.api = api;
        this.tls = tls;
        this.grace = grace;
    }

    /** Returns a new builder: loopback, port 8080, no token, plain HTTP. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the address the server listens on, with the port it got. */
    public InetSocketAddress address() {
        return address;
    }

    /** Returns the port the server listens on. */
    public int port() {
        return address.getPort();
    }

    /** Returns the base URI, such as {@code http://127.0.0.1:8080/}. */
    public URI uri() {
        InetAddress host = address.getAddress();
        String text = host instanceof Inet6Address ? "[" + host.getHostAddress() + "]" : host.getHostAddress();
        return URI.create((tls ? "https" : "http") + "://" + text + ":" + port() + "/");
    }

    /**
     * Returns the names of the segment counters served now, sorted: those of {@link Builder#segments(List)},
     * or else the namespace's counters in the store whose names follow the rule of {@link Names}, as last
     * listed (at the start, and again when a request names a counter not seen yet).
     *
     * @return the names
     */
    public List<String> segmentNames() {
        return api.segmentNames();
    }

    /** Returns the requests being answered now. */
    public int requestsInFlight() {
        return state.inFlight();
    }

    /**
     * Waits until the server is closed.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void awaitClose() throws InterruptedException {
        closedLatch.await();
    }

    /**
     * Stops accepting, lets the requests in flight finish within the grace period, then closes every
     * connection and thread. Idempotent; the runtime stays open for the caller to close.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            state.drain();
            serverChannel.close().awaitUninterruptibly();
            for (Channel channel : channels) {
                channel.eventLoop().execute(() -> {
                    HttpChannel handler = channel.pipeline().get(HttpChannel.class);
                    if (handler == null) {
                        channel.close();
                    } else {
                        handler.closeIfIdle(channel);
                    }
                });
            }
            channels.newCloseFuture().awaitUninterruptibly(grace.toMillis());
            channels.close().awaitUninterruptibly();
            sampler.cancel(false);
            blocking.shutdown();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            try {
                blocking.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } finally {
            closedLatch.countDown();
        }
    }

    @Override
    public String toString() {
        return "CosIdServer[" + uri() + "]";
    }

    private static long issuedTotal(CosIdRuntime runtime) {
        long total = 0;
        for (SnowflakeId generator : runtime.generators()) {
            total += generator.stats().issued();
        }
        return total;
    }

    /** Answers a request body above the limit with a JSON 413 instead of an empty one. */
    private static final class Aggregator extends HttpObjectAggregator {
        Aggregator() {
            super(MAX_REQUEST_BODY);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            Response error = Response.error(new ApiError(413, "body_too_large", "the request body exceeds "
                    + MAX_REQUEST_BODY + " bytes; no endpoint takes a body"));
            FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(error.body()));
            out.headers().set(HttpHeaderNames.CONTENT_TYPE, Response.JSON);
            out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, error.body().length);
            out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Configures and starts a server; {@link #check()} and {@link #start(CosIdRuntime)} check every setting.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * CosIdServer server = CosIdServer.builder()
     *         .bind("0.0.0.0").port(8443)
     *         .token(BearerToken.fromFile(Path.of("/etc/cosid/token")))
     *         .tls(TlsIdentity.fromPem(Path.of("cert.pem"), Path.of("key.pem")))
     *         .start(runtime);
     * }</pre>
     */
    public static final class Builder {
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port = 8080;
        private IdLayout layout = IdLayout.MILLISECOND;
        private List<String> names = List.of(DEFAULT_NAME);
        private List<String> segments;
        private BearerToken token;
        private boolean insecureNoToken;
        private TlsIdentity tls;
        private PrometheusMeterRegistry registry;
        private Clock clock = Clock.system();
        private int ioThreads = Runtime.getRuntime().availableProcessors();
        private Duration grace = Duration.ofSeconds(10);

        private Builder() {
        }

        /**
         * Sets the address to listen on; default the loopback address.
         *
         * @param host an IP address or a host name
         * @return this builder
         * @throws IllegalArgumentException when the name does not resolve
         */
        public Builder bind(String host) {
            Objects.requireNonNull(host, "host");
            try {
                this.bind = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("bind address '" + host + "' does not resolve");
            }
            return this;
        }

        /**
         * Sets the address to listen on.
         *
         * @param address the address
         * @return this builder
         */
        public Builder bind(InetAddress address) {
            this.bind = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * Sets the port; 0 takes a free one, which {@link CosIdServer#port()} reports. Default 8080.
         *
         * @param port 0 to 65535
         * @return this builder
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Sets the layout of the ids served; default {@link IdLayout#MILLISECOND}.
         *
         * @param layout the layout
         * @return this builder
         */
        public Builder layout(IdLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
            return this;
        }

        /**
         * Sets the id spaces served, the first being the one {@code /v1/ids} and {@code /ids} use; default
         * {@value #DEFAULT_NAME}. Two id spaces may repeat each other's ids, like two tables.
         *
         * @param names distinct names of the rule of {@link Names}: 1 to 128 characters of {@code A-Z a-z 0-9 . _ -},
         *     other than {@code .} and {@code ..}
         * @return this builder
         */
        public Builder names(List<String> names) {
            this.names = List.copyOf(names);
            return this;
        }

        /**
         * Serves only these segment counters at {@code /v1/segments/{name}} and Leaf's
         * {@code /api/segment/get/{key}}; each reserves its first range when the server starts, and is created
         * if the store has no counter of that name. Without this call the server serves every counter of the
         * namespace that the store holds, as Leaf serves every {@code biz_tag} of its table: a counter's first
         * range is reserved on the first request for it, a name the server has not seen makes it list the
         * store's counters again (at most once a second), and a request never creates a counter.
         *
         * @param segments distinct names of the rule of {@link Names}; empty serves none
         * @return this builder
         */
        public Builder segments(List<String> segments) {
            this.segments = List.copyOf(segments);
            return this;
        }

        /**
         * Requires {@code Authorization: Bearer TOKEN} on every path but {@code /} and {@code /health}.
         *
         * @param token the token, or null for none
         * @return this builder
         */
        public Builder token(BearerToken token) {
            this.token = token;
            return this;
        }

        /**
         * Allows listening on an address that is not loopback without a token; default refused.
         *
         * @param allowed whether anyone who reaches the port may take ids
         * @return this builder
         */
        public Builder insecureNoToken(boolean allowed) {
            this.insecureNoToken = allowed;
            return this;
        }

        /**
         * Serves HTTPS with a certificate and key.
         *
         * @param identity the certificate chain and key, or null for plain HTTP
         * @return this builder
         */
        public Builder tls(TlsIdentity identity) {
            this.tls = identity;
            return this;
        }

        /**
         * Serves {@code /metrics} from this registry; default a new one with {@link CosIdMetrics} bound to
         * the runtime (its event counters then stay zero: pass the metrics as the runtime's listener, and
         * their registry here, to count renewals and losses).
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder meterRegistry(PrometheusMeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Sets the clock the window check and the rate samples read; default the system clock.
         *
         * @param clock the clock, the runtime's
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets the number of event loops; default the number of cores.
         *
         * @param threads 1 to 256
         * @return this builder
         */
        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /**
         * Sets how long {@link CosIdServer#close()} waits for requests in flight; default 10 s.
         *
         * @param grace the wait, zero or more
         * @return this builder
         */
        public Builder shutdownGrace(Duration grace) {
            this.grace = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /**
         * Checks every setting that needs no runtime: the port, the names, the threads, and that an
         * address that is not loopback has a token or an explicit allowance.
         *
         * @return this builder
         * @throws IllegalArgumentException naming the setting
         */
        public Builder check() {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " is outside 0..65535");
            }
            if (ioThreads < 1 || ioThreads > 256) {
                throw new IllegalArgumentException("ioThreads " + ioThreads + " is outside 1..256");
            }
            if (grace.isNegative()) {
                throw new IllegalArgumentException("shutdown grace " + grace + " is negative");
            }
            if (names.isEmpty()) {
                throw new IllegalArgumentException("no id space names: serve at least one");
            }
            names.forEach(Names::require);
            if (new HashSet<>(names).size() != names.size()) {
                throw new IllegalArgumentException("id space names " + names + " repeat a name");
            }
            if (segments != null) {
                segments.forEach(Names::require);
            }
            if (segments != null && new HashSet<>(segments).size() != segments.size()) {
                throw new IllegalArgumentException("segment names " + segments + " repeat a name");
            }
            if (token == null && !bind.isLoopbackAddress() && !insecureNoToken) {
                throw new IllegalArgumentException("listening on " + bind.getHostAddress() + ", which is not a "
                        + "loopback address, without a bearer token is refused: anyone who reaches the port could "
                        + "take ids; set a token, or allow it explicitly");
            }
            return this;
        }

        /**
         * Checks the settings, binds the port and starts answering.
         *
         * @param runtime the runtime whose ids are served; the caller closes it after the server
         * @return the running server
         * @throws IllegalArgumentException for a bad setting, before the port is bound
         * @throws IllegalStateException when the port cannot be bound
         */
        public CosIdServer start(CosIdRuntime runtime) {
            Objects.requireNonNull(runtime, "runtime");
            check();
            SslContext ssl = null;
            if (tls != null) {
                try {
                    ssl = SslContextBuilder.forServer(tls.key(), tls.chain().toArray(new X509Certificate[0])).build();
                } catch (javax.net.ssl.SSLException | RuntimeException e) {
                    throw new IllegalArgumentException("the TLS certificate and key do not make a server context: "
                            + e.getMessage());
                }
            }
            PrometheusMeterRegistry meters = registry;
            RateHistory history = new RateHistory(300);
            HttpApi api;
            if (meters == null) {
                meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                api = new HttpApi(runtime, layout, names, segments, token, meters, history, clock);
                new CosIdMetrics(meters, runtime.namespace()).bind(runtime);
            } else {
                api = new HttpApi(runtime, layout, names, segments, token, meters, history, clock);
            }

            EventLoopGroup group = new MultiThreadIoEventLoopGroup(ioThreads,
                    new DefaultThreadFactory("cosid-http", true), NioIoHandler.newFactory());
            ThreadPoolExecutor blocking = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS,
                    new ArrayBlockingQueue<>(64), new DefaultThreadFactory("cosid-http-store", true));
            ChannelGroup channels = new DefaultChannelGroup("cosid-http", GlobalEventExecutor.INSTANCE);
            ServerState state = new ServerState();
            SslContext sslContext = ssl;
            Channel serverChannel;
            try {
                serverChannel = new ServerBootstrap()
                        .group(group)
                        .channel(NioServerSocketChannel.class)
                        .option(ChannelOption.SO_BACKLOG, 1024)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childHandler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel channel) {
                                channels.add(channel);
                                if (sslContext != null) {
                                    channel.pipeline().addLast(sslContext.newHandler(channel.alloc()));
                                }
                                channel.pipeline().addLast(new HttpServerCodec(4096, 8192, 8192),
                                        new Aggregator(), new HttpChannel(api, blocking, state));
                            }
                        })
                        .bind(new InetSocketAddress(bind, port)).sync().channel();
            } catch (Exception e) {
                blocking.shutdown();
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("cannot listen on " + bind.getHostAddress() + ":" + port + ": "
                        + e.getMessage(), e);
            }
            ScheduledFuture<?> sampler = group.next().scheduleAtFixedRate(
                    () -> history.sample(clock.nowMillis(), issuedTotal(runtime)), 0, 1, TimeUnit.SECONDS);
            return new CosIdServer(serverChannel, group, blocking, channels, state, sampler, api, tls != null,
                    grace);
        }
    }
}
