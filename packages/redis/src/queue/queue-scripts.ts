import { LuaScript } from '../connection/lua-script';
import { QUEUE_LUA, queueTableLua } from './queue-lua';

/**
 * Lua scripts of the Redis queue (helpers and layout in queue-lua.ts). Each runs
 * atomically on the server, so a claim and the lease bookkeeping it implies can
 * never interleave with another worker's. Every script takes the same four keys
 * (ready, leases, agencies, claims) and starts its arguments with the queue's
 * `base` prefix and wake-up channel.
 */
const PRELUDE = `${QUEUE_LUA}
${queueTableLua(1, 1)}
`;

/** ARGV: base, channel, deliveryId, agencyId, runAt. Replaces any entry (dropping a live claim) and announces it. */
export const enqueueScript = new LuaScript(
  'enqueue',
  `${PRELUDE}
enqueue_entry(q, ARGV[3], ARGV[4], ARGV[5])
return 1
`,
);

/**
 * ARGV: base, channel, then triples (deliveryId, agencyId, runAt). Adds each
 * entry only when the delivery has none (queued or claimed); returns how many
 * were added. Used by the recovery sweep, which must never disturb an entry a
 * worker is holding.
 */
export const enqueueMissingScript = new LuaScript(
  'enqueueMissing',
  `${PRELUDE}
local added = 0
for i = 3, #ARGV, 3 do
  if redis.call('HEXISTS', q.agencies, ARGV[i]) == 0 then
    enqueue_entry(q, ARGV[i], ARGV[i + 1], ARGV[i + 2])
    added = added + 1
  end
end
return added
`,
);

/**
 * ARGV: base, channel, now, leaseUntil, limit, claimToken, recoverMax, excluded agencyIds…
 *
 * First returns up to `recoverMax` expired leases (leaseUntil <= now) to their
 * agency's due set at their original runAt, dropping the dead claim. Then claims
 * up to `limit` due entries, earliest runAt first across agencies, skipping
 * excluded agencies: it merges the agencies' due sets, taking from the agency
 * with the earliest entry every entry due no later than the next agency's
 * earliest, so one agency's backlog comes out in one batch. Returns
 * { claims, nextDue }: claims as flat quadruples (deliveryId, agencyId, claimId,
 * runAt), and, when fewer than `limit` were claimed, when something next becomes
 * claimable ('' for never; '-' when the batch was full and it was not computed).
 */
function claimSource(linked: boolean): string {
  // Linked, ARGV[8] is the store's key prefix and the excluded agencies start at 9.
  const firstExcluded = linked ? 9 : 8;
  return `${PRELUDE}
local now, lease_until, limit, token = ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]

local expired = redis.call('ZRANGEBYSCORE', q.leases, '-inf', now, 'LIMIT', 0, tonumber(ARGV[7]))
local touched = {}
for _, id in ipairs(expired) do
  local held = redis.call('HGET', q.claims, id)
  local agency = redis.call('HGET', q.agencies, id)
  redis.call('ZREM', q.leases, id)
  redis.call('HDEL', q.claims, id)
  if agency then
    local run_at = held and string.match(held, ' (%S+)$') or now
    redis.call('ZADD', q.base .. 'due:' .. agency, run_at, id)
    touched[agency] = true
  end
end
for agency in pairs(touched) do refresh_ready(q, agency) end

local excluded, excluded_count = {}, 0
for i = ${firstExcluded}, #ARGV do
  excluded[ARGV[i]] = true
  excluded_count = excluded_count + 1
end

-- The first two agencies with due entries that are not excluded, with their earliest runAt.
local function next_two()
  local heads = redis.call('ZRANGEBYSCORE', q.ready, '-inf', now, 'WITHSCORES', 'LIMIT', 0, excluded_count + 2)
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
  local due = q.base .. 'due:' .. agency
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
  refresh_ready(q, agency)
end
-- A short batch means nothing else is due now: say when something will be, so the
-- caller can sleep until then ('-': not computed, the batch was full; '': never).
local next_at = '-'
if n < limit then next_at = next_due(q, now) or '' end
if n > 0 then
  redis.call('ZADD', q.leases, unpack(leases))
  redis.call('HSET', q.claims, unpack(claims))
end
${linked ? SNAPSHOT_TAIL : 'return { out, next_at }'}
`;
}

/**
 * Linked claims also read what the worker reads next, in the same step: each
 * claimed delivery's record fields (r, u) and each agency's configuration. The
 * reply gains `records`, (r, u or '') pairs in claim order, and `configs`,
 * (agencyId, HGETALL) pairs.
 */
const SNAPSHOT_TAIL = `
local records, configs, seen = {}, {}, {}
for i = 1, #out, 4 do
  local f = redis.call('HMGET', ARGV[8] .. 'd:' .. out[i], 'r', 'u')
  records[#records + 1] = f[1] or ''
  records[#records + 1] = f[2] or ''
  local agency = out[i + 1]
  if not seen[agency] then
    seen[agency] = true
    configs[#configs + 1] = agency
    configs[#configs + 1] = redis.call('HGETALL', ARGV[8] .. 'cfg:' .. agency)
  end
end
return { out, next_at, records, configs }`;

export const claimScript = new LuaScript('claim', claimSource(false));
/** ARGV: base, channel, now, leaseUntil, limit, claimToken, recoverMax, storeBase, excluded agencyIds… */
export const claimLinkedScript = new LuaScript('claimLinked', claimSource(true));

/** ARGV: base, channel, now. Read-only. When something next becomes claimable (see next_due), or nil. */
export const nextDueScript = new LuaScript(
  'nextDue',
  `${PRELUDE}
return next_due(q, ARGV[3])
`,
);

/** ARGV: base, channel, now. Read-only. 1 when some agency has an entry due at `now`. */
export const anyDueScript = new LuaScript(
  'anyDue',
  `${PRELUDE}
return #redis.call('ZRANGEBYSCORE', q.ready, '-inf', ARGV[3], 'LIMIT', 0, 1)
`,
);

/** ARGV: base, channel, deliveryId, claimId, leaseUntil. 1 when renewed. */
export const renewScript = new LuaScript(
  'renew',
  `${PRELUDE}
if not holds(q, ARGV[3], ARGV[4]) then return 0 end
redis.call('ZADD', q.leases, ARGV[5], ARGV[3])
return 1
`,
);

/** ARGV: base, channel, deliveryId, claimId. 1 when acked. */
export const ackScript = new LuaScript(
  'ack',
  `${PRELUDE}
if not holds(q, ARGV[3], ARGV[4]) then return 0 end
redis.call('ZREM', q.leases, ARGV[3])
redis.call('HDEL', q.claims, ARGV[3])
redis.call('HDEL', q.agencies, ARGV[3])
return 1
`,
);

/** ARGV: base, channel, deliveryId, claimId, runAt. 1 when rescheduled. */
export const rescheduleScript = new LuaScript(
  'reschedule',
  `${PRELUDE}
local id = ARGV[3]
if not holds(q, id, ARGV[4]) then return 0 end
local agency = redis.call('HGET', q.agencies, id)
redis.call('ZREM', q.leases, id)
redis.call('HDEL', q.claims, id)
redis.call('ZADD', q.base .. 'due:' .. agency, ARGV[5], id)
refresh_ready(q, agency)
return 1
`,
);
