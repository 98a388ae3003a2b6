package dev.cosid;

/**
 * The decoded parts of one id.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * IdParts parts = IdLayout.MILLISECOND.parse(id);
 * Instant issuedIn = Instant.ofEpochMilli(parts.timestampMillis());
 * }</pre>
 *
 * @param timestampMillis the first millisecond of the id's timestamp unit, since the Unix epoch
 * @param slot the slot that issued it
 * @param sequence the sequence within its unit
 */
public record IdParts(long timestampMillis, int slot, long sequence) {
}
