package dev.cosid.coordination;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a lease store keeps for one role when it coordinates leadership: the role's fence, a sequence that
 * orders the role's records, the lease and the registrations. The transitions are pure; a store applies
 * each one with one atomic conditional update of the role's record (a versioned ZooKeeper write, an etcd
 * transaction on the mod revision), or runs the same rules in SQL or Lua.
 *
 * <p><b>The token.</b> The fence grows by one on every {@link #minted() mint} and is never reused, so it is
 * the epoch: a store's token is {@code (fence, 0)}, a {@link FencingToken} whose producer id is the fence
 * and whose epoch is always 0. Tokens compare by producer id first, so the JDBC fence and any resource that
 * compares tokens order store tokens by their fence, unchanged. Fence 0 means no epoch was ever minted.
 *
 * <p><b>The offsets.</b> Every registration and lease write takes the next value of the role's sequence as its
 * offset, so the newest record of a key has the highest offset and the roster comes back in registration
 * order, as the {@link RoleStateBuilder} fold expects. A store keeps only the newest record per key: a
 * deregistration removes the member, a cleared lease is gone.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RoleRecord current = RoleRecord.decode(role, bytesReadWithVersion);
 * RoleRecord next = current.minted();
 * // write next.encode() only if the version is still the one read; then:
 * FencingToken token = next.token().orElseThrow();
 * }</pre>
 *
 * @param fence the newest fence minted, 0 when none was
 * @param sequence the last offset handed out
 * @param lease the current lease, if any
 * @param leaseOffset the offset of the lease, 0 without one
 * @param members the registrations in offset order, each with its offset
 */
public record RoleRecord(long fence, long sequence, Optional<Lease> lease, long leaseOffset,
                         List<RosterEntry> members) {

    /** The record of a role no store call has touched. */
    public static final RoleRecord EMPTY = new RoleRecord(0, 0, Optional.empty(), 0, List.of());

    private static final short VERSION = 0;

    /** Checks the numbers and sorts the members by offset. */
    public RoleRecord {
        Objects.requireNonNull(lease, "lease");
        if (fence < 0 || sequence < 0 || leaseOffset < 0) {
            throw new CoordinationException("a role record has a non-negative fence, sequence and lease offset, not "
                    + fence + ", " + sequence + " and " + leaseOffset);
        }
        List<RosterEntry> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparingLong(RosterEntry::offset));
        members = List.copyOf(sorted);
    }

    /**
     * Returns the token of a fence.
     *
     * @param fence a fence a store minted, at least 1
     * @return {@code (fence, 0)}
     */
    public static FencingToken token(long fence) {
        if (fence < 1) {
            throw new CoordinationException("a store's fence starts at 1, not " + fence);
        }
        return FencingToken.of(fence, (short) 0);
    }

    /** Returns the role's current token, or empty when no epoch was minted. */
    public Optional<FencingToken> token() {
        return fence == 0 ? Optional.empty() : Optional.of(token(fence));
    }

    /** Returns the record after one more epoch was minted: the fence grows by one. */
    public RoleRecord minted() {
        if (fence == Long.MAX_VALUE) {
            throw new CoordinationException("the fence of this role is at its largest value; no epoch can follow");
        }
        return new RoleRecord(fence + 1, sequence, lease, leaseOffset, members);
    }

    /**
     * Returns the record with a member registered at the next offset, after every earlier registration.
     *
     * @param member the member
     * @param atMillis its registration instant
     * @return the new record
     */
    public RoleRecord registered(MemberId member, long atMillis) {
        Objects.requireNonNull(member, "member");
        long offset = next();
        List<RosterEntry> next = new ArrayList<>(members.size() + 1);
        for (RosterEntry entry : members) {
            if (!entry.member().equals(member)) {
                next.add(entry);
            }
        }
        next.add(new RosterEntry(member, atMillis, offset));
        return new RoleRecord(fence, offset, lease, leaseOffset, next);
    }

    /**
     * Returns the record without a member's registration.
     *
     * @param member the member
     * @return the new record, this one when the member was not registered
     */
    public RoleRecord deregistered(MemberId member) {
        Objects.requireNonNull(member, "member");
        List<RosterEntry> next = new ArrayList<>(members);
        return next.removeIf(entry -> entry.member().equals(member))
                ? new RoleRecord(fence, sequence, lease, leaseOffset, next) : this;
    }

    /**
     * Returns the record with a lease written under the current token, at the next offset.
     *
     * @param role the role, for messages
     * @param token the writer's token
     * @param written the lease, granted with {@code token}
     * @return the new record
     * @throws CoordinationException when the lease names another token than {@code token}
     * @throws FencedException when {@code token} is not the current one
     */
    public RoleRecord leaseWritten(Role role, FencingToken token, Lease written) {
        requireLeaseToken(token, written);
        requireCurrent(role, token);
        long offset = next();
        return new RoleRecord(fence, offset, Optional.of(written), offset, members);
    }

    /**
     * Returns the record without its lease, cleared under the current token.
     *
     * @param role the role, for messages
     * @param token the writer's token
     * @return the new record
     * @throws FencedException when {@code token} is not the current one
     */
    public RoleRecord leaseCleared(Role role, FencingToken token) {
        requireCurrent(role, token);
        return new RoleRecord(fence, next(), Optional.empty(), 0, members);
    }

    /**
     * Checks that a lease names the token it is written with, before anything is sent to a store.
     *
     * @param token the writer's token
     * @param lease the lease
     * @throws CoordinationException when they differ
     */
    public static void requireLeaseToken(FencingToken token, Lease lease) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(lease, "lease");
        if (!lease.token().equals(token)) {
            throw new CoordinationException("the lease names token " + lease.token() + " but is written with token "
                    + token);
        }
    }

    /**
     * Checks that a token is the role's current one.
     *
     * @param role the role, for the message
     * @param token the writer's token
     * @throws FencedException naming both tokens when it is not
     */
    public void requireCurrent(Role role, FencingToken token) {
        if (fence == 0 || !token(fence).equals(token)) {
            throw fenced(role, token, token());
        }
    }

    /**
     * Returns the exception for a write whose token is not the role's current one.
     *
     * @param role the role
     * @param token the writer's token
     * @param current the current token, if the store named it
     * @return the exception
     */
    public static FencedException fenced(Role role, FencingToken token, Optional<FencingToken> current) {
        return new FencedException("role '" + role + "': token " + token + " is fenced; the newest is "
                + current.map(FencingToken::toString).orElse("none"));
    }

    /**
     * Returns the records a transport reads: every registration and the lease, each at its offset, in offset
     * order.
     *
     * @param role the role the records belong to
     * @return the records
     */
    public List<CoordinationEntry> entries(Role role) {
        List<CoordinationEntry> entries = new ArrayList<>(members.size() + 1);
        for (RosterEntry entry : members) {
            entries.add(new CoordinationEntry(entry.offset(), CoordinationKey.registration(role, entry.member()),
                    Optional.of(new Registration(entry.member(), entry.registeredAt()))));
        }
        lease.ifPresent(held -> entries.add(new CoordinationEntry(leaseOffset, CoordinationKey.lease(role),
                Optional.of(held))));
        entries.sort(Comparator.comparingLong(CoordinationEntry::offset));
        return entries;
    }

    private long next() {
        if (sequence == Long.MAX_VALUE) {
            throw new CoordinationException("the sequence of this role is at its largest value");
        }
        return sequence + 1;
    }

    /**
     * Encodes the record for a store that keeps it as one value (a znode, an etcd key): version {@code i16 = 0},
     * fence, sequence and lease offset ({@code i64} each), the lease as a {@link CoordinationCodec} value with an
     * {@code i32} length ({@code -1} for none), the member count ({@code i32}), and per member its offset
     * ({@code i64}) and its registration as a codec value with an {@code i32} length.
     *
     * @return the bytes
     */
    public byte[] encode() {
        byte[] leaseBytes = lease.map(CoordinationCodec::encodeValue).orElse(null);
        List<byte[]> registrations = new ArrayList<>(members.size());
        int size = 2 + 8 * 3 + 4 + (leaseBytes == null ? 0 : leaseBytes.length) + 4;
        for (RosterEntry entry : members) {
            byte[] bytes = CoordinationCodec.encodeValue(new Registration(entry.member(), entry.registeredAt()));
            registrations.add(bytes);
            size += 8 + 4 + bytes.length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size).putShort(VERSION).putLong(fence).putLong(sequence)
                .putLong(leaseOffset);
        if (leaseBytes == null) {
            buffer.putInt(-1);
        } else {
            buffer.putInt(leaseBytes.length).put(leaseBytes);
        }
        buffer.putInt(members.size());
        for (int i = 0; i < members.size(); i++) {
            buffer.putLong(members.get(i).offset()).putInt(registrations.get(i).length).put(registrations.get(i));
        }
        return buffer.array();
    }

    /**
     * Decodes a record that {@link #encode()} made.
     *
     * @param role the role, for messages
     * @param bytes the stored bytes; null or empty for a role without a record
     * @return the record
     * @throws CoordinationException naming the role and the fault when the bytes are malformed
     */
    public static RoleRecord decode(Role role, byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return EMPTY;
        }
        try {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            short version = buffer.getShort();
            if (version != VERSION) {
                throw new CoordinationException("unknown version " + version);
            }
            long fence = buffer.getLong();
            long sequence = buffer.getLong();
            long leaseOffset = buffer.getLong();
            int leaseLength = buffer.getInt();
            Optional<Lease> lease = Optional.empty();
            if (leaseLength >= 0) {
                lease = Optional.of((Lease) CoordinationCodec.decodeValue(RecordKind.LEASE, slice(buffer, leaseLength))
                        .orElseThrow(() -> new CoordinationException("an empty lease")));
            } else if (leaseLength != -1) {
                throw new CoordinationException("a lease length of " + leaseLength);
            }
            int count = buffer.getInt();
            if (count < 0 || count > bytes.length) {
                throw new CoordinationException("a member count of " + count);
            }
            List<RosterEntry> members = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long offset = buffer.getLong();
                Registration registration = (Registration) CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                        slice(buffer, buffer.getInt())).orElseThrow(() -> new CoordinationException("an empty "
                        + "registration"));
                members.add(new RosterEntry(registration.member(), registration.registeredAt(), offset));
            }
            if (buffer.hasRemaining()) {
                throw new CoordinationException(buffer.remaining() + " trailing bytes");
            }
            return new RoleRecord(fence, sequence, lease, leaseOffset, members);
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new CoordinationException("the record of role '" + role + "' is malformed: truncated", e);
        } catch (CoordinationException e) {
            throw new CoordinationException("the record of role '" + role + "' is malformed: " + e.getMessage(), e);
        }
    }

    private static byte[] slice(ByteBuffer buffer, int length) {
        if (length < 0 || length > buffer.remaining()) {
            throw new CoordinationException("a length of " + length + " with " + buffer.remaining() + " bytes left");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }
}
