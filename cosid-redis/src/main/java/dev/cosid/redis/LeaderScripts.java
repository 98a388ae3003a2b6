package dev.cosid.redis;

/**
 * The Lua scripts of leadership on Redis: each operation is one script on the two keys of a role, which share
 * the hash tag {@code {leader:ROLE}} and so one Redis Cluster slot. The role's hash holds {@code fence},
 * {@code seq} and the lease's fields; the members' hash maps each member to {@code seq:registeredAt}. Numbers
 * the scripts compute stay far below 2^53, where Lua's doubles are exact; the lease's instants pass through as
 * text.
 */
final class LeaderScripts {

    private LeaderScripts() {
    }

    private static final String NUM = "local function num(n) return string.format('%.0f', n) end\n";

    /** KEYS: role hash. Moves the fence on by one (from 0 for a new role) and returns {fence}. */
    static final String MINT = NUM + "return {num(redis.call('HINCRBY', KEYS[1], 'fence', 1))}";

    /**
     * KEYS: role hash, members hash. ARGV: member, registered at. Moves the sequence on and writes the member at
     * it; returns {seq}.
     */
    static final String REGISTER = NUM + String.join("\n",
            "local s = num(redis.call('HINCRBY', KEYS[1], 'seq', 1))",
            "redis.call('HSET', KEYS[2], ARGV[1], s .. ':' .. ARGV[2])",
            "return {s}");

    /** KEYS: role hash, members hash. ARGV: member. Removes the member; returns {'1'}. */
    static final String DEREGISTER = String.join("\n",
            "redis.call('HDEL', KEYS[2], ARGV[1])",
            "return {'1'}");

    /** The condition of a lease write or clear: the role's fence is the writer's; nil (nothing written) otherwise. */
    private static final String GUARD = NUM + String.join("\n",
            "if redis.call('HGET', KEYS[1], 'fence') ~= ARGV[1] then return false end",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "local s = num(redis.call('HINCRBY', KEYS[1], 'seq', 1))",
            "");

    /**
     * KEYS: role hash. ARGV: fence, member, granted at, deadline. Writes the lease at the next sequence value, with
     * the server's {@code TIME} in {@code lease_written}, only while the fence is the role's; returns {'1'}, or nil.
     */
    static final String WRITE_LEASE = GUARD + String.join("\n",
            "redis.call('HSET', KEYS[1], 'lease_member', ARGV[2], 'lease_fence', ARGV[1], 'lease_granted', ARGV[3],",
            "    'lease_deadline', ARGV[4], 'lease_seq', s, 'lease_written', num(now))",
            "return {'1'}");

    /** KEYS: role hash. ARGV: fence. Clears the lease only while the fence is the role's; returns {'1'}, or nil. */
    static final String CLEAR_LEASE = GUARD + String.join("\n",
            "redis.call('HDEL', KEYS[1], 'lease_member', 'lease_fence', 'lease_granted', 'lease_deadline', 'lease_seq')",
            "redis.call('HSET', KEYS[1], 'lease_written', num(now))",
            "return {'1'}");

    /** The server's {@code TIME} in milliseconds, as {@code now}. */
    private static final String NOW = String.join("\n",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "");

    /**
     * KEYS: role hash. ARGV: member, at most (ms). Takes the role's lock when its lease has no deadline ahead of the
     * server's {@code TIME}: mints, and writes a lease granted now with a deadline at most later. Returns {fence,
     * granted, deadline}, or nil when the lock is held.
     */
    static final String LOCK = NUM + NOW + String.join("\n",
            "local d = redis.call('HGET', KEYS[1], 'lease_deadline')",
            "if d and tonumber(d) > now then return false end",
            "local f = num(redis.call('HINCRBY', KEYS[1], 'fence', 1))",
            "local s = num(redis.call('HINCRBY', KEYS[1], 'seq', 1))",
            "local deadline = num(now + tonumber(ARGV[2]))",
            "redis.call('HSET', KEYS[1], 'lease_member', ARGV[1], 'lease_fence', f, 'lease_granted', num(now),",
            "    'lease_deadline', deadline, 'lease_seq', s, 'lease_written', num(now))",
            "return {f, num(now), deadline}");

    /**
     * KEYS: role hash. ARGV: fence, at least (ms). Releases a lock under its fence: keeps the lease until its grant
     * plus at least when that is ahead of the server's {@code TIME}, clears it otherwise. Returns {'1'}, or nil when
     * the fence is no longer the role's or the lease's.
     */
    static final String UNLOCK = NUM + NOW + String.join("\n",
            "if redis.call('HGET', KEYS[1], 'fence') ~= ARGV[1] then return false end",
            "if redis.call('HGET', KEYS[1], 'lease_fence') ~= ARGV[1] then return false end",
            "local keep = tonumber(redis.call('HGET', KEYS[1], 'lease_granted')) + tonumber(ARGV[2])",
            "local s = num(redis.call('HINCRBY', KEYS[1], 'seq', 1))",
            "if keep > now then",
            "  redis.call('HSET', KEYS[1], 'lease_deadline', num(keep), 'lease_seq', s, 'lease_written', num(now))",
            "else",
            "  redis.call('HDEL', KEYS[1], 'lease_member', 'lease_fence', 'lease_granted', 'lease_deadline',",
            "      'lease_seq')",
            "  redis.call('HSET', KEYS[1], 'lease_written', num(now))",
            "end",
            "return {'1'}");

    /** KEYS: role hash, members hash. Returns {role fields and values, members and values}: one snapshot. */
    static final String READ = "return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2])}";
}
