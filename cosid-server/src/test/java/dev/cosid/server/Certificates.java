package dev.cosid.server;

import dev.cosid.testkit.servers.Servers;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Self-signed certificates for 127.0.0.1 and localhost, made by the openssl command line. */
final class Certificates {

    private Certificates() {
    }

    /** A certificate and its PKCS#8 key: {@code rsa} or {@code ec}; returns {cert, key}. */
    static Path[] selfSigned(Path dir, String name, String keyType) throws Exception {
        Path cert = dir.resolve(name + "-cert.pem");
        Path key = dir.resolve(name + "-key.pem");
        List<String> command = new ArrayList<>(List.of(openssl(), "req", "-x509", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()));
        if (keyType.equals("ec")) {
            command.addAll(List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"));
        } else {
            command.addAll(List.of("-newkey", "rsa:2048"));
        }
        run(command);
        return new Path[] {cert, key};
    }

    /** Rewrites a PKCS#8 RSA key as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}). */
    static Path pkcs1(Path pkcs8, Path out) throws Exception {
        run(List.of(openssl(), "rsa", "-in", pkcs8.toString(), "-out", out.toString(), "-traditional"));
        return out;
    }

    /** Encrypts a key with a passphrase ({@code BEGIN ENCRYPTED PRIVATE KEY}). */
    static Path encrypted(Path pkcs8, Path out) throws Exception {
        run(List.of(openssl(), "pkcs8", "-topk8", "-in", pkcs8.toString(), "-out", out.toString(),
                "-passout", "pass:secret"));
        return out;
    }

    /** An SSL context that trusts exactly this certificate. */
    static SSLContext trusting(Path cert) throws Exception {
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(cert)));
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("server", certificate);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static String openssl() {
        return Servers.binary("openssl", "openssl", List.of("/usr/bin")).toString();
    }

    private static void run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: "
                    + new String(output, StandardCharsets.UTF_8));
        }
    }
}
