package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./cosid serve} refuses bad input with one line on stderr, before it touches the store. */
class ServeCommandTest {

    @TempDir
    Path dir;

    private String sqlite() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private void assertRefusedBeforeTheStore(Cli result, int status, String message) {
        assertEquals(status, result.status(), result.err());
        assertEquals("", result.out());
        assertEquals(1, result.err().strip().lines().count(), result.err());
        assertTrue(result.err().contains(message), result.err());
        assertFalse(Files.exists(dir.resolve("cosid.db")), "the store was never opened");
    }

    @Test
    void refusesAnAddressThatIsNotLoopbackWithoutAToken() {
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--bind", "0.0.0.0", "--store", sqlite()), 2,
                "cosid serve: --bind 0.0.0.0 is not a loopback address and no token is set: use --token-file PATH or "
                        + "COSID_TOKEN, or say --insecure-no-token");
    }

    @Test
    void refusesAMissingShortOrEmptyTokenFile() throws Exception {
        Path missing = dir.resolve("missing");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--token-file", missing.toString(),
                "--store", sqlite()), 2, "cannot read the token file " + missing + ": no such file");
        Path shortToken = Files.writeString(dir.resolve("short"), "abc\n");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--token-file", shortToken.toString(),
                "--store", sqlite()), 2, "has 3 characters; a token needs at least 16");
    }

    @Test
    void refusesHalfATlsConfigurationAndAnUnreadableCertificate() {
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--tls-cert", "cert.pem", "--store", sqlite()), 2,
                "--tls-cert and --tls-key go together");
        Path cert = dir.resolve("cert.pem");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--tls-cert", cert.toString(), "--tls-key",
                dir.resolve("key.pem").toString(), "--store", sqlite()), 2,
                "cannot read the certificate file " + cert + ": no such file");
    }

    @Test
    void refusesABadPortNameOrLayout() {
        assertRefusedBeforeTheStore(Cli.run("serve", "--store", sqlite()), 2, "Missing required option: '--port=PORT'");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "70000", "--store", sqlite()), 2,
                "port 70000 is outside 0..65535");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--names", "default,a/b", "--store", sqlite()), 2,
                "cosid serve: name 'a/b' contains the character '/'; a counter or id space name is 1 to 128 characters "
                        + "of A-Z a-z 0-9 . _ -, other than . and ..");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--layout", "NANO", "--store", sqlite()), 2,
                "unknown layout 'NANO'");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--segments", "invoice,a b", "--store", sqlite()),
                2, "cosid serve: name 'a b' contains the character U+0020; a counter or id space name is 1 to 128 "
                        + "characters of A-Z a-z 0-9 . _ -, other than . and ..");
        assertRefusedBeforeTheStore(Cli.run("serve", "--port", "0", "--segments", "invoice,invoice", "--store",
                sqlite()), 2, "segment names [invoice, invoice] repeat a name");
    }

    @Test
    void aPortInUseFailsAndReleasesTheSlotItTook() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Cli result = Cli.run("serve", "--port", Integer.toString(taken.getLocalPort()), "--store", sqlite());
            assertEquals(1, result.status(), result.err());
            assertTrue(result.err().contains("cosid serve: cannot listen on 127.0.0.1:" + taken.getLocalPort()),
                    result.err());
        }
        Cli leases = Cli.run("leases", "--store", sqlite());
        assertTrue(leases.lines().get(2).contains("(free, last "), "the slot was released: " + leases.out());
    }
}
