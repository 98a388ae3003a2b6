package dev.cosid.coordination;

/**
 * A record value of the coordination topic: a {@link Registration} or a {@link Lease}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * byte[] bytes = CoordinationCodec.encodeValue(new Registration(MemberId.of("node-1"), now));
 * }</pre>
 */
public sealed interface CoordinationValue permits Registration, Lease {

    /** Returns the member the value names. */
    MemberId member();

    /** Returns the kind of record this value belongs to. */
    RecordKind kind();
}
