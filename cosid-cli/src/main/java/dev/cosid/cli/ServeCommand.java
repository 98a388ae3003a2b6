package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.Names;
import dev.cosid.lease.SlotLease;
import dev.cosid.micrometer.CosIdMetrics;
import dev.cosid.server.BearerToken;
import dev.cosid.server.CosIdServer;
import dev.cosid.server.TlsIdentity;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid serve}: the HTTP id service, until SIGTERM or SIGINT; then it stops accepting, lets
 * the requests in flight finish, and releases the slot with the exact last issued millisecond.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serves ids over HTTP: a JSON API under /v1, cosid-proxy-server's /ids paths, /health, "
                + "/metrics and a live status page at /.",
                "The bearer token comes from --token-file or the COSID_TOKEN environment variable, never from "
                + "the command line. The owner key defaults to host:PORT. SIGTERM drains the requests in flight, "
                + "then releases the slot."})
final class ServeCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions storeOptions;

    @Mixin
    RuntimeOptions runtimeOptions;

    @Option(names = "--port", paramLabel = "PORT", required = true,
            description = "the port to listen on; 0 takes a free one, which the 'serving' line on stderr names")
    int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "the address to listen on (default: ${DEFAULT-VALUE}); any other than loopback needs a "
                    + "token or --insecure-no-token")
    String bind;

    @Option(names = "--token-file", paramLabel = "PATH",
            description = "a file holding the bearer token clients must send (or set COSID_TOKEN)")
    Path tokenFile;

    @Option(names = "--insecure-no-token",
            description = "allow an address that is not loopback without a token: anyone who reaches it takes ids")
    boolean insecureNoToken;

    @Option(names = "--tls-cert", paramLabel = "PATH", description = "PEM certificate chain for HTTPS, with --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PATH",
            description = "PEM private key for HTTPS (PKCS#8 or PKCS#1, unencrypted), with --tls-cert")
    Path tlsKey;

    @Option(names = "--names", paramLabel = "NAME[,NAME...]", defaultValue = CosIdServer.DEFAULT_NAME,
            description = "the id spaces served, comma-separated; the first is the one /v1/ids and /ids use "
                    + "(default: ${DEFAULT-VALUE})")
    List<String> names;

    @Option(names = "--segments", paramLabel = "NAME[,NAME...]",
            description = "serve only these segment counters at /v1/segments/{name} and Leaf's /api/segment/get/{key}, "
                    + "comma-separated, creating those missing (default: every counter of the namespace in the store, "
                    + "as Leaf serves its table; a request never creates one)")
    List<String> segments;

    @Option(names = "--grace", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "how long a stop waits for requests in flight (default: ${DEFAULT-VALUE})")
    Duration grace;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        // every check that needs no store runs first, so bad input changes nothing
        IdLayout layout = runtimeOptions.layout();
        runtimeOptions.refuseConflicts(spec.commandLine().getParseResult());
        Optional<BearerToken> token = BearerToken.resolve(tokenFile, System.getenv());
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        TlsIdentity tls = tlsCert == null ? null : TlsIdentity.fromPem(tlsCert, tlsKey);
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--bind " + bind + " does not resolve to an address");
        }
        CosIdServer.Builder serverBuilder = CosIdServer.builder().bind(address).port(port).layout(layout)
                .names(commaSeparated(names))
                .token(token.orElse(null)).insecureNoToken(insecureNoToken).tls(tls).shutdownGrace(grace);
        if (segments != null) {
            serverBuilder.segments(commaSeparated(segments));
        }
        if (token.isEmpty() && !address.isLoopbackAddress() && !insecureNoToken) {
            throw new IllegalArgumentException("--bind " + bind + " is not a loopback address and no token is set: "
                    + "use --token-file PATH or COSID_TOKEN, or say --insecure-no-token");
        }
        serverBuilder.check();

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CosIdMetrics metrics = new CosIdMetrics(registry, storeOptions.namespace());
        CosIdRuntime.Builder runtimeBuilder = runtimeOptions.builder(storeOptions,
                CosIdListener.all(new GenerateCommand.StderrListener(err), metrics));
        storeOptions.notices().forEach(line -> err.println("cosid: " + line));
        if (runtimeOptions.lease.ownerKey == null && port != 0) {
            runtimeBuilder.ownerKey(hostName() + ":" + port); // a server's identity is host:port
        }
        CosIdRuntime runtime = runtimeBuilder.start();
        CosIdServer server;
        try {
            metrics.bind(runtime);
            server = serverBuilder.meterRegistry(registry).start(runtime);
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
        SlotLease lease = runtime.lease();
        err.println("cosid: serving namespace '" + runtime.namespace() + "' on slot " + lease.slot() + " (fence "
                + lease.fence() + ") at " + server.uri());
        if (segments == null && runtimeOptions.staticSlot == null) {
            reportStoredSegments(err, runtime, server);
        }
        if (token.isPresent() && tls == null && !address.isLoopbackAddress()) {
            err.println("cosid: warning: the bearer token crosses the network in clear text; "
                    + "use --tls-cert and --tls-key");
        }
        err.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        Thread stop = new Thread(() -> {
            List<String> served = server.segmentNames();
            server.close();
            runtime.close();
            long last = runtime.generators().stream().map(SnowflakeId::stats)
                    .mapToLong(dev.cosid.GeneratorStats::lastIssuedMillis).max().orElse(-1);
            err.println(stopLine(lease.slot(), last, served));
            err.flush();
            stopped.countDown();
        }, "cosid-serve-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        stopped.await();
        return 0;
    }

    /**
     * What a stop did: the slot it released, with the last millisecond its Snowflake ids used, and the segment
     * counters whose unused ids it handed back (a tail below a range another runtime reserved since stays a gap).
     */
    static String stopLine(int slot, long lastIssuedMillis, List<String> segments) {
        StringBuilder line = new StringBuilder("cosid: stopped; released slot ").append(slot);
        line.append(lastIssuedMillis < 0 ? ", having issued no Snowflake id"
                : " with last issued millisecond " + lastIssuedMillis);
        if (!segments.isEmpty()) {
            line.append(", and handed back the unused ids of segment").append(segments.size() > 1 ? "s " : " ")
                    .append(String.join(", ", segments)).append(" where no later range was reserved");
        }
        return line.toString();
    }

    /**
     * Splits comma-separated names keeping every empty one ({@code invoice,} is the names {@code invoice} and
     * {@code ""}), so that a stray comma is refused by the rule for names instead of dropped.
     */
    private static List<String> commaSeparated(List<String> values) {
        List<String> names = new java.util.ArrayList<>();
        for (String value : values) {
            names.addAll(java.util.Arrays.asList(value.split(",", -1)));
        }
        return names;
    }

    /** Says which of the store's counters are served, and which are not because their names break the rule. */
    private static void reportStoredSegments(PrintWriter err, CosIdRuntime runtime, CosIdServer server) {
        List<String> served = server.segmentNames();
        err.println("cosid: serving the " + served.size() + (served.size() == 1 ? " segment counter" : " segment counters")
                + " of namespace '" + runtime.namespace() + "' in the store" + (served.isEmpty() ? "" : " ("
                + String.join(", ", served.size() <= 10 ? served : served.subList(0, 10)) + (served.size() > 10
                ? ", ..." : "") + ")") + " and those created later; a request never creates one");
        try {
            for (String name : runtime.segmentCounters().keySet()) {
                if (!Names.isValid(name)) {
                    try {
                        Names.require(name);
                    } catch (IllegalArgumentException e) {
                        err.println("cosid: warning: a segment counter of the store is not served: " + e.getMessage());
                    }
                }
            }
        } catch (LeaseStoreException e) {
            err.println("cosid: warning: cannot list the segment counters of the store: " + e.getMessage());
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
