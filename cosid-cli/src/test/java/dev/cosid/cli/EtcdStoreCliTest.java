package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code etcd://} through the command line, against a three-member cluster. */
class EtcdStoreCliTest {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    private static String[] run(String... args) {
        Cli result = Cli.run(args);
        return new String[] {String.valueOf(result.status()), result.out(), result.err()};
    }

    @Test
    void generateAndLeasesWorkWithAnEtcdUrlAndItsPrefix() {
        String url = CLUSTER.server().url() + "/apps/ids";
        String[] generated = run("generate", "--count", "3", "--store", url, "--namespace", "etcd-cli");
        assertEquals("0", generated[0], generated[2]);
        assertEquals(3, generated[1].lines().count());
        String[] leases = run("leases", "--store", url, "--namespace", "etcd-cli");
        assertEquals("0", leases[0], leases[2]);
        assertTrue(leases[1].startsWith("namespace 'etcd-cli' in " + url + ": 1024 slots"), leases[1]);
        String[] elsewhere = run("leases", "--store", CLUSTER.server().url(), "--namespace", "etcd-cli");
        assertFalse(elsewhere[1].lines().anyMatch(line -> line.startsWith("0 ")), "without the prefix: " + elsewhere[1]);
    }

    @Test
    void badAndUnreachableUrlsFailOnOneLineWithoutThePassword() {
        int closed = ServerProcess.freePort();
        String[] unreachable = run("generate", "--store", "etcd://u:SECRET123@127.0.0.1:" + closed);
        assertEquals("1", unreachable[0], unreachable[2]);
        assertEquals(1, unreachable[2].strip().lines().count(), unreachable[2]);
        assertTrue(unreachable[2].contains("cannot reach etcd://u:***@127.0.0.1:" + closed), unreachable[2]);
        assertFalse((unreachable[1] + unreachable[2]).contains("SECRET123"), unreachable[2]);
        String[] bad = run("leases", "--store", "etcd://127.0.0.1:" + closed + "/apps/../x");
        assertEquals("2", bad[0], bad[2]);
        assertTrue(bad[2].contains("the prefix '/apps/../x' of store URL"), bad[2]);
    }
}
