import { LuaScript } from './lua-script';

/**
 * Lua scripts of the Redis queue. Each runs atomically on the server, so a claim
 * and the lease bookkeeping it implies can never interleave with another worker's.
 *
 * Data layout (see key-space.ts): per agency a ZSET `due:<agencyId>` of queued
 * deliveryId → runAt; `ready`, a ZSET agencyId → its earliest runAt, so a claim
 * walks agencies in due order and skips an excluded agency in one step however
 * long its backlog; `leases`, a ZSET deliveryId → leaseUntil; `claims`, a HASH
 * deliveryId → "claimId runAt"; `agencies`, a HASH deliveryId → agencyId.
 *
 * Per-agency `due` keys are derived inside the scripts from the `base` argument;
 * they carry the same hash tag as the declared keys, so they live in the same
 * Redis Cluster slot.
 */

/** Helpers every queue script starts with: keep an agency's `ready` score equal to its earliest runAt, and check a claim id. */
const SHARED_LUA = `
local function refresh_ready(base, ready, agency)
  local head = redis.call('ZRANGE', base .. 'due:' .. agency, 0, 0, 'WITHSCORES')
  if head[1] then
    redis.call('ZADD', ready, head[2], agency)
  else
    redis.call('ZREM', ready, agency)
  end
end

local function holds(claims, id, claim_id)
  local held = redis.call('HGET', claims, id)
  return held ~= false and string.sub(held, 1, #claim_id + 1) == claim_id .. ' '
end
`;

/**
 * KEYS: ready, leases, agencies, claims. ARGV: base, wakeChannel, deliveryId, agencyId, runAt.
 * Replaces any entry of the delivery (dropping a live claim) and announces it.
 */
export const enqueueScript = new LuaScript(
  'enqueue',
  `${SHARED_LUA}
local base, id, agency, run_at = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local previous = redis.call('HGET', KEYS[3], id)
local due = base .. 'due:' .. agency
if not previous then
  -- A new entry (the common case, from emit): it can only make its agency due earlier.
  redis.call('HSET', KEYS[3], id, agency)
  redis.call('ZADD', due, run_at, id)
  local head = redis.call('ZSCORE', KEYS[1], agency)
  if not head or tonumber(run_at) < tonumber(head) then redis.call('ZADD', KEYS[1], run_at, agency) end
else
  -- A replacement: drop any claim, move the entry, and recompute the heads it may have been.
  if previous ~= agency then
    redis.call('ZREM', base .. 'due:' .. previous, id)
    refresh_ready(base, KEYS[1], previous)
    redis.call('HSET', KEYS[3], id, agency)
  end
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', due, run_at, id)
  refresh_ready(base, KEYS[1], agency)
end
redis.call('PUBLISH', ARGV[2], '1')
return 1
`,
);

/**
 * KEYS: ready, leases, agencies, claims. ARGV: base, wakeChannel, then triples
 * (deliveryId, agencyId, runAt). Adds each entry only when the delivery has none
 * (queued or claimed); returns how many were added. Used by the recovery sweep,
 * which must never disturb an entry a worker is holding.
 */
export const enqueueMissingScript = new LuaScript(
  'enqueueMissing',
  `${SHARED_LUA}
local base = ARGV[1]
local added = 0
for i = 3, #ARGV, 3 do
  local id, agency = ARGV[i], ARGV[i + 1]
  if redis.call('HSETNX', KEYS[3], id, agency) == 1 then
    redis.call('ZADD', base .. 'due:' .. agency, ARGV[i + 2], id)
    refresh_ready(base, KEYS[1], agency)
    added = added + 1
  end
end
if added > 0 then redis.call('PUBLISH', ARGV[2], '1') end
return added
`,
);

/**
 * KEYS: ready, leases, agencies, claims. ARGV: base, now, leaseUntil, limit,
 * claimToken, recoverMax, excluded agencyIds…
 *
 * First returns up to `recoverMax` expired leases (leaseUntil <= now) to their
 * agency's due set at their original runAt, dropping the dead claim. Then claims
 * up to `limit` due entries, earliest runAt first across agencies, skipping
 * excluded agencies: it merges the agencies' due sets, taking from the agency
 * with the earliest entry every entry due no later than the next agency's
 * earliest, so one agency's backlog comes out in one batch. Returns flat
 * quadruples (deliveryId, agencyId, claimId, runAt).
 */
export const claimScript = new LuaScript(
  'claim',
  `${SHARED_LUA}
local base, now, lease_until, limit, token = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[6]))
local touched = {}
for _, id in ipairs(expired) do
  local held = redis.call('HGET', KEYS[4], id)
  local agency = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
  if agency then
    local run_at = held and string.match(held, ' (%S+)$') or now
    redis.call('ZADD', base .. 'due:' .. agency, run_at, id)
    touched[agency] = true
  end
end
for agency in pairs(touched) do refresh_ready(base, KEYS[1], agency) end

local excluded, excluded_count = {}, 0
for i = 7, #ARGV do
  excluded[ARGV[i]] = true
  excluded_count = excluded_count + 1
end

-- The first two agencies with due entries that are not excluded, with their earliest runAt.
local function next_two()
  local heads = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, excluded_count + 2)
  local found = {}
  for i = 1, #heads, 2 do
    if not excluded[heads[i]] then
      found[#found + 1] = { heads[i], tonumber(heads[i + 1]), heads[i + 1] }
      if #found == 2 then break end
    end
  end
  return found[1], found[2]
end

local out, leases, claims = {}, {}, {}
local n = 0
local guard = limit * 2 + 10
while n < limit and guard > 0 do
  guard = guard - 1
  local first, second = next_two()
  if not first then break end
  local agency = first[1]
  local bound = now
  -- The score as Redis wrote it: a number printed back by Lua could lose digits.
  if second and second[2] < tonumber(now) then bound = second[3] end
  local due = base .. 'due:' .. agency
  local entries = redis.call('ZRANGEBYSCORE', due, '-inf', bound, 'WITHSCORES', 'LIMIT', 0, limit - n)
  for i = 1, #entries, 2 do
    local id, run_at = entries[i], entries[i + 1]
    n = n + 1
    local claim_id = token .. '.' .. n
    leases[#leases + 1] = lease_until
    leases[#leases + 1] = id
    claims[#claims + 1] = id
    claims[#claims + 1] = claim_id .. ' ' .. run_at
    out[#out + 1] = id
    out[#out + 1] = agency
    out[#out + 1] = claim_id
    out[#out + 1] = run_at
  end
  if #entries > 0 then
    -- The entries just read are the lowest-scored ones, i.e. ranks 0 .. k-1.
    redis.call('ZREMRANGEBYRANK', due, 0, #entries / 2 - 1)
  end
  refresh_ready(base, KEYS[1], agency)
end
if n > 0 then
  redis.call('ZADD', KEYS[2], unpack(leases))
  redis.call('HSET', KEYS[4], unpack(claims))
end
return out
`,
);

/**
 * KEYS: ready, leases. ARGV: now. Read-only. The earliest time after `now` at
 * which something becomes claimable (an agency's earliest entry, or a lease
 * ending), or nil. Entries already due are ignored: the caller has just claimed
 * what it could, and may be skipping them on purpose.
 */
export const nextDueScript = new LuaScript(
  'nextDue',
  `
local entry = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local lease = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local best = false
if entry[2] then best = tonumber(entry[2]) end
if lease[2] and (not best or tonumber(lease[2]) < best) then best = tonumber(lease[2]) end
if not best then return false end
return tostring(best)
`,
);

/** KEYS: ready. ARGV: now. Read-only. 1 when some agency has an entry due at `now`. */
export const anyDueScript = new LuaScript(
  'anyDue',
  `
return #redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
`,
);

/** KEYS: leases, claims. ARGV: deliveryId, claimId, leaseUntil. 1 when renewed. */
export const renewScript = new LuaScript(
  'renew',
  `${SHARED_LUA}
if not holds(KEYS[2], ARGV[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`,
);

/** KEYS: leases, claims, agencies. ARGV: deliveryId, claimId. 1 when acked. */
export const ackScript = new LuaScript(
  'ack',
  `${SHARED_LUA}
if not holds(KEYS[2], ARGV[1], ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`,
);

/** KEYS: ready, leases, agencies, claims. ARGV: base, deliveryId, claimId, runAt. 1 when rescheduled. */
export const rescheduleScript = new LuaScript(
  'reschedule',
  `${SHARED_LUA}
local base, id = ARGV[1], ARGV[2]
if not holds(KEYS[4], id, ARGV[3]) then return 0 end
local agency = redis.call('HGET', KEYS[3], id)
redis.call('ZREM', KEYS[2], id)
redis.call('HDEL', KEYS[4], id)
redis.call('ZADD', base .. 'due:' .. agency, ARGV[4], id)
refresh_ready(base, KEYS[1], agency)
return 1
`,
);
