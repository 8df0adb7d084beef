/**
 * Lua helpers shared by the queue's scripts and by the store's linked scripts
 * (see linked/redis-webhooks.ts), which change a delivery and its queue entry in one
 * atomic step.
 *
 * Queue layout (see key-names.ts): per agency a ZSET `due:<agencyId>` of queued
 * deliveryId → runAt; `ready`, a ZSET agencyId → its earliest runAt, so a claim
 * walks agencies in due order and skips an excluded agency in one step however
 * long its backlog; `leases`, a ZSET deliveryId → leaseUntil; `claims`, a HASH
 * deliveryId → "claimId runAt"; `agencies`, a HASH deliveryId → agencyId.
 *
 * Scripts pass the queue as a table `q` with the key names `ready`, `leases`,
 * `agencies`, `claims`, the prefix `base` and the pub/sub `channel`. Per-agency
 * `due` keys are derived from `base`; they carry the same hash tag as the
 * declared keys, so they live in the same Redis Cluster slot.
 */
export const QUEUE_LUA = `
local function refresh_ready(q, agency)
  local head = redis.call('ZRANGE', q.base .. 'due:' .. agency, 0, 0, 'WITHSCORES')
  if head[1] then
    redis.call('ZADD', q.ready, head[2], agency)
  else
    redis.call('ZREM', q.ready, agency)
  end
end

-- Makes the delivery due at run_at, replacing any entry and dropping its claim.
local function enqueue_entry(q, id, agency, run_at)
  local previous = redis.call('HGET', q.agencies, id)
  local due = q.base .. 'due:' .. agency
  if not previous then
    -- A new entry (the common case, from emit): it can only make its agency due earlier.
    redis.call('HSET', q.agencies, id, agency)
    redis.call('ZADD', due, run_at, id)
    local head = redis.call('ZSCORE', q.ready, agency)
    if not head or tonumber(run_at) < tonumber(head) then redis.call('ZADD', q.ready, run_at, agency) end
  else
    if previous ~= agency then
      redis.call('ZREM', q.base .. 'due:' .. previous, id)
      refresh_ready(q, previous)
      redis.call('HSET', q.agencies, id, agency)
    end
    redis.call('HDEL', q.claims, id)
    redis.call('ZREM', q.leases, id)
    redis.call('ZADD', due, run_at, id)
    refresh_ready(q, agency)
  end
  redis.call('PUBLISH', q.channel, id)
end

-- Removes the delivery's entry, queued or claimed.
local function remove_entry(q, id)
  local agency = redis.call('HGET', q.agencies, id)
  if not agency then return end
  redis.call('HDEL', q.agencies, id)
  redis.call('HDEL', q.claims, id)
  redis.call('ZREM', q.leases, id)
  if redis.call('ZREM', q.base .. 'due:' .. agency, id) == 1 then refresh_ready(q, agency) end
end

-- The earliest time after now at which something becomes claimable: an agency's
-- earliest entry or a lease ending. Entries already due are ignored: the caller
-- has just claimed what it could, and may be skipping them on purpose.
local function next_due(q, now)
  local entry = redis.call('ZRANGEBYSCORE', q.ready, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local lease = redis.call('ZRANGEBYSCORE', q.leases, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local best, text = false, false
  if entry[2] then best, text = tonumber(entry[2]), entry[2] end
  if lease[2] and (not best or tonumber(lease[2]) < best) then text = lease[2] end
  return text
end

local function holds(q, id, claim_id)
  local held = redis.call('HGET', q.claims, id)
  return held ~= false and string.sub(held, 1, #claim_id + 1) == claim_id .. ' '
end
`;

/**
 * Builds the `q` table from KEYS[first .. first + 3] (ready, leases, agencies,
 * claims) and two ARGV values (base, channel) at `baseArg`, `baseArg + 1`.
 */
export function queueTableLua(firstKey: number, baseArg: number): string {
  return `local q = { ready = KEYS[${firstKey}], leases = KEYS[${firstKey + 1}], agencies = KEYS[${firstKey + 2}],
  claims = KEYS[${firstKey + 3}], base = ARGV[${baseArg}], channel = ARGV[${baseArg + 1}] }`;
}
