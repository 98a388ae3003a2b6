package dev.cosid.server;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server's TLS certificate chain and private key, read from PEM files.
 *
 * <p>The certificate file holds one or more {@code CERTIFICATE} blocks, the server's first. The key
 * file holds an unencrypted {@code PRIVATE KEY} (PKCS#8: RSA, EC, Ed25519) or {@code RSA PRIVATE KEY}
 * (PKCS#1). The key must match the first certificate; every problem is reported at start, naming the file.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 365 -subj /CN=ids.example
 * TlsIdentity tls = TlsIdentity.fromPem(Path.of("cert.pem"), Path.of("key.pem"));
 * CosIdServer server = CosIdServer.builder().tls(tls).token(token).start(runtime);
 * }</pre>
 */
public final class TlsIdentity {

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    /** DER of AlgorithmIdentifier { rsaEncryption, NULL }. */
    private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
        (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

    private final List<X509Certificate> chain;
    private final PrivateKey key;

    private TlsIdentity(List<X509Certificate> chain, PrivateKey key) {
        this.chain = List.copyOf(chain);
        this.key = key;
    }

    /**
     * Reads and checks a certificate chain and its key.
     *
     * @param certificateFile PEM certificates, the server's first
     * @param keyFile the PEM private key of the first certificate
     * @return the identity
     * @throws IllegalArgumentException naming the file and the problem
     */
    public static TlsIdentity fromPem(Path certificateFile, Path keyFile) {
        List<X509Certificate> chain = readCertificates(certificateFile);
        PrivateKey key = readKey(keyFile);
        requireMatch(key, chain.get(0).getPublicKey(), certificateFile, keyFile);
        return new TlsIdentity(chain, key);
    }

    /** Returns the certificates, the server's first. */
    public List<X509Certificate> chain() {
        return chain;
    }

    PrivateKey key() {
        return key;
    }

    private static List<X509Certificate> readCertificates(Path file) {
        String text = read(file, "certificate");
        List<X509Certificate> chain = new ArrayList<>();
        Matcher blocks = BLOCK.matcher(text);
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            while (blocks.find()) {
                if (blocks.group(1).equals("CERTIFICATE")) {
                    byte[] der = decode(blocks.group(2), file);
                    chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
                }
            }
        } catch (CertificateException e) {
            throw new IllegalArgumentException("the certificate file " + file + " holds a certificate that does not "
                    + "parse: " + e.getMessage());
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("the certificate file " + file + " holds no PEM CERTIFICATE block");
        }
        return chain;
    }

    private static PrivateKey readKey(Path file) {
        String text = read(file, "key");
        Matcher blocks = BLOCK.matcher(text);
        while (blocks.find()) {
            String type = blocks.group(1);
            String body = blocks.group(2);
            switch (type) {
                case "PRIVATE KEY":
                    return pkcs8(decode(body, file), file);
                case "RSA PRIVATE KEY":
                    if (body.contains("ENCRYPTED")) {
                        throw encrypted(file);
                    }
                    return pkcs8(wrapPkcs1(decode(body, file)), file);
                case "ENCRYPTED PRIVATE KEY":
                    throw encrypted(file);
                case "EC PRIVATE KEY":
                    throw new IllegalArgumentException("the key file " + file + " holds a SEC1 EC key; convert it to "
                            + "PKCS#8: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
                default:
                    // parameters, certificates: look further
            }
        }
        throw new IllegalArgumentException("the key file " + file + " holds no PEM PRIVATE KEY or RSA PRIVATE KEY block");
    }

    private static IllegalArgumentException encrypted(Path file) {
        return new IllegalArgumentException("the key file " + file + " is encrypted; decrypt it: openssl pkcs8 -topk8 "
                + "-nocrypt -in " + file + " -out key.pem");
    }

    private static PrivateKey pkcs8(byte[] der, Path file) {
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException | RuntimeException e) {
                // not this algorithm; try the next
            }
        }
        throw new IllegalArgumentException("the key file " + file + " holds a private key that is not RSA, EC, "
                + "Ed25519, Ed448 or DSA in PKCS#8");
    }

    /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo, which the JDK reads. */
    static byte[] wrapPkcs1(byte[] pkcs1) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0x02, 0x01, 0x00}); // version 0
        body.writeBytes(RSA_ALGORITHM);
        body.write(0x04); // OCTET STRING
        writeLength(body, pkcs1.length);
        body.writeBytes(pkcs1);
        ByteArrayOutputStream info = new ByteArrayOutputStream();
        info.write(0x30); // SEQUENCE
        writeLength(info, body.size());
        info.writeBytes(body.toByteArray());
        return info.toByteArray();
    }

    private static void writeLength(ByteArrayOutputStream out, int length) {
        if (length < 0x80) {
            out.write(length);
            return;
        }
        int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
        out.write(0x80 | bytes);
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((length >>> (8 * i)) & 0xff);
        }
    }

    private static void requireMatch(PrivateKey key, PublicKey publicKey, Path certificateFile, Path keyFile) {
        String algorithm = switch (key.getAlgorithm().toUpperCase(Locale.ROOT)) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "ED25519", "ED448", "EDDSA" -> key.getAlgorithm();
            case "DSA" -> "SHA256withDSA";
            default -> null; // RSASSA-PSS needs parameters; the handshake checks it
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "cosid tls key check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException("the key in " + keyFile + " does not match the public key of the first "
                    + "certificate in " + certificateFile);
        }
    }

    private static String read(Path file, String what) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            String why = e instanceof java.nio.file.NoSuchFileException ? "no such file"
                    : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new IllegalArgumentException("cannot read the " + what + " file " + file + ": " + why);
        }
    }

    private static byte[] decode(String base64, Path file) {
        StringBuilder clean = new StringBuilder(base64.length());
        for (String line : base64.split("\\R")) {
            if (!line.contains(":")) { // skip RFC 1421 headers such as Proc-Type
                clean.append(line.strip());
            }
        }
        try {
            return Base64.getDecoder().decode(clean.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the PEM file " + file + " holds a block that is not base64: "
                    + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "TlsIdentity[" + chain.get(0).getSubjectX500Principal() + ", " + key.getAlgorithm() + " key]";
    }
}
