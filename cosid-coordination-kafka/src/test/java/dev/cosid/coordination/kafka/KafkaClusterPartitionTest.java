package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RolePartitioner;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.KafkaCluster;
import dev.cosid.testkit.servers.StarNetwork;
import dev.cosid.time.ManualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;

/**
 * A real three-node cluster on a star network of namespaces, each node on a host of its own: a broker cut off from
 * the other two (alive, only its link silenced) leaves a cluster that still mints epochs and takes lease writes
 * with the two replicas left in sync ({@code min.insync.replicas=2}), and rejoins in sync once healed; a client host
 * cut off reaches no broker while the test still reaches every one.
 */
class KafkaClusterPartitionTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));
    private static final Duration TRANSPORT_TIMEOUT = Duration.ofSeconds(12);

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);

    @Test
    void aBrokerCutOffFromTheOtherTwoLeavesTheClusterServingAndRejoinsInSyncOnceHealed() {
        Role role = Role.of("controller-" + UUID.randomUUID().toString().substring(0, 8));
        try (StarNetwork net = StarNetwork.created("kafka-1", "kafka-2", "kafka-3");
                KafkaCluster kafka = KafkaCluster.started(net, net.hosts());
                KafkaCoordinationTransport transportA = transport(kafka)) {
            CoordinationClient a = new CoordinationClient(transportA, CONFIG, clock);
            Leadership first = a.tryAcquire(role, MemberId.of("a")).orElseThrow();
            int rolePartition = RolePartitioner.partitionFor(role, transportA.partitions());
            int cutOff = kafka.leaderOf(KafkaCoordinationTransport.TOPIC, rolePartition);
            StarNetwork.Host host = kafka.hostOf(cutOff);
            int other = cutOff % 3 + 1;

            net.cut(host);
            assertFalse(connects(kafka.hostOf(other), kafka.endpointOf(cutOff)),
                    "node " + other + " no longer reaches node " + cutOff + " once cut");
            assertTrue(connects(kafka.controlBootstrapServers().split(",")[cutOff - 1]),
                    "the test still reaches node " + cutOff + " on its control address");
            Await.until(() -> kafka.leaderOf(KafkaCoordinationTransport.TOPIC, rolePartition) != cutOff,
                    Duration.ofSeconds(30), "the other two nodes electing a new leader of the role's partition");
            Await.until(() -> kafka.inSyncReplicas(KafkaCoordinationTransport.TOPIC, rolePartition).size() == 2,
                    Duration.ofSeconds(10), () -> "the in-sync replicas of the role's partition shrinking to the two "
                            + "connected nodes, not " + kafka.inSyncReplicas(KafkaCoordinationTransport.TOPIC, rolePartition));

            // a fresh client mints and writes (acks=all, two replicas in sync). The holder's own transport is not
            // used during the cut: its admin client stays on its connection to the node cut off, and one request
            // there takes the transport's whole timeout (5 s for the write, then 12 s to read the pair back)
            clock.advance(Duration.ofSeconds(31));
            try (KafkaCoordinationTransport transportB = transport(kafka)) {
                CoordinationClient b = new CoordinationClient(transportB, CONFIG, clock);
                Leadership second = b.tryAcquire(role, MemberId.of("b")).orElseThrow(
                        () -> new AssertionError("b did not win the expired role with node " + cutOff + " cut off"));
                assertTrue(second.token().supersedes(first.token()), second.token() + " supersedes " + first.token());
                assertEquals(Optional.of(MemberId.of("b")), b.describe(role).holder());
                assertThrows(FencedException.class, first::renew);
            }

            net.heal(host);
            kafka.awaitReady();
            Await.until(() -> kafka.inSyncReplicas(KafkaCoordinationTransport.TOPIC, rolePartition).size() == 3,
                    Duration.ofSeconds(10), "node " + cutOff + " back among the in-sync replicas");
            assertTrue(connects(kafka.hostOf(other), kafka.endpointOf(cutOff)),
                    "node " + other + " reaches node " + cutOff + " again once healed");
        }
    }

    /**
     * A leader keeps its role through the cut of the broker that coordinates its transactions, with the
     * transport's own client settings (only the bootstrap servers given): the cluster moves the coordinator within
     * seconds, and the renewal must not wait longer than that on the silent broker. It once did: the transport set
     * its admin client's request timeout to its whole call timeout (30 s), and the clients kept Kafka's 30 s
     * request timeout, so the read-back after a lease commit, or the commit itself, waited on the cut-off broker
     * past the lease's deadline and the leader was revoked for failing renewals by the fault of one broker of three.
     */
    @Test
    void aLeaderKeepsItsRoleThroughTheCutOfTheBrokerCoordinatingItsTransactions() {
        LeaseConfig config = LeaseConfig.of(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(2));
        Role role = Role.of("renewing-" + UUID.randomUUID().toString().substring(0, 8));
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.cosid.time.Clock clock = dev.cosid.time.Clock.system();
        try (StarNetwork net = StarNetwork.created("kafka-1", "kafka-2", "kafka-3");
                KafkaCluster kafka = KafkaCluster.started(net, net.hosts());
                KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(
                        Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), 3,
                        config.duration());
                Elector elector = Elector.builder(transport, role, MemberId.of("a")).config(config)
                        .listener(new ElectionListener() {
                            @Override
                            public void elected(Leadership leadership) {
                                events.add("elected " + leadership.token());
                            }

                            @Override
                            public void revoked(Revocation revocation) {
                                events.add("revoked " + revocation);
                            }

                            @Override
                            public void renewalFailed(Leadership leadership, CoordinationException failure,
                                                      long revokeAtMillis) {
                                failures.add(clock.nowMillis() + " " + failure.getMessage());
                            }
                        }).start()) {
            Await.until(elector::leading, Duration.ofSeconds(30), "a leads");
            int coordinator = kafka.leaderOf(KafkaCluster.TRANSACTION_STATE, kafka.transactionStatePartition(
                    role.name()));
            long renewedBefore = elector.leadership().orElseThrow().lease().grantedAt();
            net.cut(kafka.hostOf(coordinator));
            Await.elapse(config.duration().plusSeconds(3)); // past the deadline of the lease held at the cut
            assertTrue(elector.leading() && events.size() == 1, "a still leads after a lease's time with node "
                    + coordinator + " cut off, never revoked: " + events
                    + "; renewals failed: " + failures);
            assertTrue(elector.leadership().orElseThrow().lease().grantedAt() > renewedBefore
                    + config.renewInterval().toMillis(), "a renewed during the cut");
            net.heal(kafka.hostOf(coordinator));
            kafka.awaitReady();
        }
    }

    @Test
    void aClientHostCutOffReachesNoBrokerWhileTheTestStillReachesEveryOne() {
        List<StarNetwork.Host> hosts;
        try (StarNetwork net = StarNetwork.created("kafka-1", "kafka-2", "kafka-3", "client");
                KafkaCluster kafka = KafkaCluster.started(net, net.hosts().subList(0, 3))) {
            hosts = net.hosts();
            StarNetwork.Host client = net.host("client");
            for (int node : kafka.nodeIds()) {
                assertTrue(connects(client, kafka.endpointOf(node)), "the client host reaches node " + node);
            }
            net.cut(client);
            for (int node : kafka.nodeIds()) {
                assertFalse(connects(client, kafka.endpointOf(node)), "the cut client reaches no node " + node);
                assertTrue(connects(kafka.endpointOf(node)), "the test still reaches node " + node);
            }
            kafka.awaitReady(); // the brokers never noticed
            net.heal(client);
            assertTrue(connects(client, kafka.endpointOf(1)), "the client host reaches node 1 once healed");
        }
        String namespaces = ServerCommand.output(List.of("ip", "netns", "list"));
        for (StarNetwork.Host host : hosts) {
            assertFalse(namespaces.contains(host.namespace()), "closing deletes " + host.namespace() + ": " + namespaces);
        }
    }

    /** A transport whose clients give up on a silent broker within seconds, as a client behind a cut must. */
    private static KafkaCoordinationTransport transport(KafkaCluster kafka) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000L);
        config.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000L);
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000L);
        return KafkaCoordinationTransport.create(config, 3, CONFIG.duration(), TRANSPORT_TIMEOUT);
    }


    /** Whether a TCP connection from inside a host to {@code address:port} succeeds within two seconds. */
    private static boolean connects(StarNetwork.Host from, String endpoint) {
        String[] parts = endpoint.split(":");
        return ServerCommand.succeeds(from.inside(List.of("timeout", "2", "bash", "-c",
                "echo > /dev/tcp/" + parts[0] + "/" + parts[1])));
    }

    /** Whether a TCP connection from the test's own namespace succeeds within two seconds. */
    private static boolean connects(String endpoint) {
        String[] parts = endpoint.split(":");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(parts[0], Integer.parseInt(parts[1])), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs short commands for the checks above. */
    private static final class ServerCommand {

        static boolean succeeds(List<String> command) {
            return run(command).exitValue() == 0;
        }

        static String output(List<String> command) {
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(process.waitFor(10, TimeUnit.SECONDS), String.join(" ", command) + " ends");
                return text;
            } catch (IOException e) {
                throw new AssertionError(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        private static Process run(List<String> command) {
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                assertTrue(process.waitFor(10, TimeUnit.SECONDS), String.join(" ", command) + " ends within its bound");
                return process;
            } catch (IOException e) {
                throw new AssertionError(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
