package dev.cosid.redis;

/**
 * The Lua scripts of the Redis store: each operation is one script, so the condition, the change
 * and the clock ({@code TIME}) run atomically inside Redis. A slot record is one field of the hash
 * {@code cosid:{ns}:slots}, in the text form of {@link dev.cosid.lease.SlotRecordCodec}.
 */
final class RedisScripts {

    private RedisScripts() {
    }

    /** Shared helpers: the store clock and the record codec. */
    private static final String PRELUDE = String.join("\n",
            "local function now_ms()",
            "  local t = redis.call('TIME')",
            "  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "end",
            "local function num(n) return string.format('%.0f', n) end",
            "local function decode(raw)",
            "  local f = {}",
            "  for part in string.gmatch(raw .. '\\t', '([^\\t]*)\\t') do f[#f + 1] = part end",
            "  if #f ~= 8 then return redis.error_reply('corrupt slot record: ' .. raw) end",
            "  return {key = f[1], inc = f[2], last = f[3], fence = tonumber(f[4]), exp = tonumber(f[5]),",
            "          floor = tonumber(f[6]), ceil = tonumber(f[7]), nextf = tonumber(f[8])}",
            "end",
            "local function encode(r)",
            "  return table.concat({r.key, r.inc, r.last, num(r.fence), num(r.exp), num(r.floor), num(r.ceil),",
            "                       num(r.nextf)}, '\\t')",
            "end",
            "local function save(slot, r, now)",
            "  local text = encode(r)",
            "  redis.call('HSET', KEYS[1], slot, text)",
            "  return {text, num(now)}",
            "end",
            "");

    /** KEYS: namespace hash. ARGV: limit, tolerance. Returns {limit, tolerance} as stored. */
    static final String REGISTER = String.join("\n",
            "redis.call('HSETNX', KEYS[1], 'limit', ARGV[1])",
            "redis.call('HSETNX', KEYS[1], 'tolerance', ARGV[2])",
            "return redis.call('HMGET', KEYS[1], 'limit', 'tolerance')");

    /** KEYS: layouts hash. ARGV: id-space name, layout text. Returns the stored layout text. */
    static final String REGISTER_LAYOUT = String.join("\n",
            "redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])",
            "return {redis.call('HGET', KEYS[1], ARGV[1])}");

    /** KEYS: slots hash. Returns {now, slot, text, slot, text, ...}. */
    static final String READ = PRELUDE + String.join("\n",
            "local result = {num(now_ms())}",
            "local all = redis.call('HGETALL', KEYS[1])",
            "for i = 1, #all do result[#result + 1] = all[i] end",
            "return result");

    /**
     * KEYS: slots hash. ARGV: slot, key, incarnation, ttl, tolerance, cold-start guard (1 or 0), takeover
     * guard (1 or 0). Returns {text, now, taken over (1 or 0)}.
     */
    static final String ACQUIRE = PRELUDE + String.join("\n",
            "local now = now_ms()",
            "local ttl, tol = tonumber(ARGV[4]), tonumber(ARGV[5])",
            "local raw = redis.call('HGET', KEYS[1], ARGV[1])",
            "local r",
            "local taken = '0'",
            "if raw then",
            "  r = decode(raw)",
            "  if r.key ~= '' and now < r.exp then return false end",
            "  if r.key ~= '' then taken = '1' end",
            "else",
            "  local nextf = 0",
            "  if ARGV[6] == '1' then nextf = now + ttl + tol end",
            "  r = {key = '', inc = '', last = '', fence = 0, exp = 0, floor = 0, ceil = 0, nextf = nextf}",
            "end",
            "r.fence = r.fence + 1",
            "r.key, r.inc, r.last = ARGV[2], ARGV[3], ARGV[2]",
            "r.floor = r.nextf",
            "if taken == '1' and ARGV[7] == '1' then r.floor = math.max(r.nextf, now + ttl + tol) end",
            "r.exp = now + ttl",
            "r.ceil = math.max(r.exp + tol, r.floor)",
            "r.nextf = r.ceil",
            "local reply = save(ARGV[1], r, now)",
            "reply[3] = taken",
            "return reply");

    /** KEYS: slots hash, namespace hash. ARGV: slot, key, incarnation, fence, ttl, tolerance. No namespace, no lease. */
    static final String RENEW = PRELUDE + String.join("\n",
            "local now = now_ms()",
            "if redis.call('EXISTS', KEYS[2]) == 0 then return false end",
            "local raw = redis.call('HGET', KEYS[1], ARGV[1])",
            "if not raw then return false end",
            "local r = decode(raw)",
            "if r.key ~= ARGV[2] or r.inc ~= ARGV[3] or num(r.fence) ~= ARGV[4] then return false end",
            "r.exp = math.max(r.exp, now + tonumber(ARGV[5]))",
            "r.ceil = math.max(r.ceil, r.exp + tonumber(ARGV[6]), r.floor)",
            "r.nextf = r.ceil",
            "return save(ARGV[1], r, now)");

    /** KEYS: slots hash. ARGV: slot, key, incarnation, fence, last issued. */
    static final String RELEASE = PRELUDE + String.join("\n",
            "local now = now_ms()",
            "local raw = redis.call('HGET', KEYS[1], ARGV[1])",
            "if not raw then return false end",
            "local r = decode(raw)",
            "if r.key ~= ARGV[2] or r.inc ~= ARGV[3] or num(r.fence) ~= ARGV[4] then return false end",
            "r.nextf = math.max(r.floor, math.min(tonumber(ARGV[5]), r.ceil))",
            "r.key, r.inc = '', ''",
            "r.fence = r.fence + 1",
            "return save(ARGV[1], r, now)");

    /**
     * KEYS: segments hash, namespace hash. ARGV: segment name, size. Moves the name's counter by size
     * ({@code HINCRBY}: exact 64-bit integers, an overflow fails before anything is written) and returns
     * {counter}; nil when the namespace record is missing.
     */
    static final String RESERVE_SEGMENT = String.join("\n",
            "if redis.call('EXISTS', KEYS[2]) == 0 then return false end",
            "redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])",
            "return {redis.call('HGET', KEYS[1], ARGV[1])}");

    /**
     * KEYS: segments hash, namespace hash. ARGV: segment name, the range's last id, the last id issued.
     * Sets the counter to the last id issued only while it still is the range's last; returns {'1'}, or nil.
     */
    static final String RETURN_SEGMENT_TAIL = String.join("\n",
            "if redis.call('EXISTS', KEYS[2]) == 0 then return false end",
            "if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return false end",
            "redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])",
            "return {'1'}");

    /**
     * KEYS: segments hash, namespace hash. ARGV: segment name, the lowest value. Raises the counter, never
     * lowering it, and returns {counter}; nil when the namespace record is missing. Both are decimal texts
     * of non-negative longs, compared by length and then by digits (Lua's numbers are doubles).
     */
    static final String RAISE_SEGMENT = String.join("\n",
            "if redis.call('EXISTS', KEYS[2]) == 0 then return false end",
            "local current = redis.call('HGET', KEYS[1], ARGV[1])",
            "local wanted = ARGV[2]",
            "if (not current) or #current < #wanted or (#current == #wanted and current < wanted) then",
            "  redis.call('HSET', KEYS[1], ARGV[1], wanted)",
            "  current = wanted",
            "end",
            "return {current}");
}
