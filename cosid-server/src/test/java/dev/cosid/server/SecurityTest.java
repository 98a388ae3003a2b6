package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.lease.InMemoryLeaseStore;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The bearer token, the rule for addresses that are not loopback, and TLS from PEM files. */
class SecurityTest {

    private static final String SECRET = "s3cret-token-0123456789";

    @TempDir
    Path dir;

    private CosIdRuntime runtime;
    private CosIdServer server;

    @BeforeEach
    void startRuntime() {
        runtime = CosIdRuntime.builder().namespace("orders").store(new InMemoryLeaseStore()).ownerKey("sec").start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        runtime.close();
    }

    private long issued() {
        return runtime.generators().stream().mapToLong(g -> g.stats().issued()).sum();
    }

    @Test
    void withATokenEveryPathButThePageAndHealthNeedsIt() {
        server = CosIdServer.builder().port(0).token(BearerToken.of(SECRET, "a test")).start(runtime);
        Http anonymous = new Http(server.uri());
        Http wrong = anonymous.withToken(SECRET + "x");
        Http right = anonymous.withToken(SECRET);
        for (String path : List.of("/v1/ids", "/v1/ids/default?count=5", "/v1/status", "/v1/slots", "/v1/decode/1",
                "/ids", "/ids/as-string", "/metrics", "/nope")) {
            Http.Reply missing = anonymous.get(path);
            assertEquals(401, missing.status(), path);
            assertEquals("unauthorized", missing.json().get("error").asText());
            assertEquals("this endpoint needs the header 'Authorization: Bearer TOKEN'",
                    missing.json().get("message").asText());
            assertEquals("Bearer realm=\"cosid\"", missing.header("WWW-Authenticate").orElseThrow());
            Http.Reply bad = wrong.get(path);
            assertEquals(401, bad.status(), path);
            assertEquals("the bearer token is wrong", bad.json().get("message").asText());
            HttpApiTest.assertNoStackTrace(bad.body());
        }
        assertEquals(0, issued(), "a refused token issues nothing");
        assertEquals(200, anonymous.get("/").status());
        assertEquals(200, anonymous.get("/health").status());
        assertEquals(200, right.get("/v1/ids").status());
        assertEquals(200, right.get("/metrics").status());
        assertEquals(404, right.get("/nope").status());
        assertEquals(1, issued());
    }

    @Test
    void refusesAnAddressThatIsNotLoopbackWithoutATokenBeforeBinding() {
        CosIdServer.Builder open = CosIdServer.builder().bind("0.0.0.0").port(0);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> open.start(runtime));
        assertEquals("listening on 0.0.0.0, which is not a loopback address, without a bearer token is refused: "
                + "anyone who reaches the port could take ids; set a token, or allow it explicitly", refused.getMessage());
        assertTrue(runtime.generators().isEmpty(), "nothing was set up");
    }

    @Test
    void listensOnAnAddressThatIsNotLoopbackWithATokenOrAnExplicitAllowance() {
        server = CosIdServer.builder().bind("0.0.0.0").port(0).token(BearerToken.of(SECRET, "a test")).start(runtime);
        Http viaLoopback = new Http(URI.create("http://127.0.0.1:" + server.port() + "/")).withToken(SECRET);
        assertEquals(200, viaLoopback.get("/v1/ids").status());
        server.close();
        server = CosIdServer.builder().bind("0.0.0.0").port(0).insecureNoToken(true).start(runtime);
        assertEquals(200, new Http(URI.create("http://127.0.0.1:" + server.port() + "/")).get("/v1/ids").status());
    }

    @ParameterizedTest(name = "{0} key")
    @ValueSource(strings = {"rsa", "rsa-pkcs1", "ec"})
    void servesHttpsFromAPemCertificateAndKey(String kind) throws Exception {
        Path[] files = Certificates.selfSigned(dir, kind, kind.startsWith("rsa") ? "rsa" : "ec");
        Path key = kind.equals("rsa-pkcs1") ? Certificates.pkcs1(files[1], dir.resolve("pkcs1.pem")) : files[1];
        if (kind.equals("rsa-pkcs1")) {
            assertTrue(Files.readString(key).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
        }
        server = CosIdServer.builder().port(0).token(BearerToken.of(SECRET, "a test"))
                .tls(TlsIdentity.fromPem(files[0], key)).start(runtime);
        assertEquals("https", server.uri().getScheme());
        HttpClient trusting = HttpClient.newBuilder().sslContext(Certificates.trusting(files[0]))
                .connectTimeout(Duration.ofSeconds(5)).build();
        Http https = new Http(trusting, server.uri(), SECRET);
        Http.Reply reply = https.get("/v1/ids?count=3");
        assertEquals(200, reply.status(), reply.body());
        assertEquals(3, reply.json().get("ids").size());
        assertEquals(401, new Http(trusting, server.uri(), null).get("/v1/ids").status());

        Http untrusting = new Http(HttpClient.newHttpClient(), server.uri(), SECRET);
        UncheckedIOException notTrusted = assertThrows(UncheckedIOException.class, () -> untrusting.get("/v1/ids"));
        assertTrue(notTrusted.getCause() instanceof SSLHandshakeException, String.valueOf(notTrusted.getCause()));
        Http plain = new Http(URI.create("http://127.0.0.1:" + server.port() + "/")).withToken(SECRET);
        assertThrows(UncheckedIOException.class, () -> plain.get("/v1/ids"), "no plain HTTP on a TLS port");
        assertEquals(3, issued());
    }

    @Test
    void refusesAKeyThatDoesNotMatchTheCertificate() throws Exception {
        Path[] one = Certificates.selfSigned(dir, "one", "rsa");
        Path[] two = Certificates.selfSigned(dir, "two", "rsa");
        assertEquals("the key in " + two[1] + " does not match the public key of the first certificate in " + one[0],
                assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(one[0], two[1])).getMessage());
    }

    @Test
    void refusesAnEncryptedMissingOrGarbledPemFileNamingIt() throws Exception {
        Path[] files = Certificates.selfSigned(dir, "rsa", "rsa");
        Path encrypted = Certificates.encrypted(files[1], dir.resolve("encrypted.pem"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(files[0], encrypted))
                .getMessage().startsWith("the key file " + encrypted + " is encrypted"));
        Path missing = dir.resolve("missing.pem");
        assertEquals("cannot read the key file " + missing + ": no such file",
                assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(files[0], missing)).getMessage());
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a pem file\n");
        assertEquals("the certificate file " + garbage + " holds no PEM CERTIFICATE block",
                assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(garbage, files[1])).getMessage());
        assertEquals("the key file " + garbage + " holds no PEM PRIVATE KEY or RSA PRIVATE KEY block",
                assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(files[0], garbage)).getMessage());
        Path corrupt = Files.writeString(dir.resolve("corrupt.pem"),
                "-----BEGIN CERTIFICATE-----\nMIIB!!!!\n-----END CERTIFICATE-----\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsIdentity.fromPem(corrupt, files[1]))
                .getMessage().startsWith("the PEM file " + corrupt + " holds a block that is not base64"));
    }

}
