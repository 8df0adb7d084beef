import { LuaScript } from '../connection/lua-script';
import { type QueueLuaFunction, queueLua, queueTableLua } from './queue-lua';

/**
 * Lua scripts of the Redis queue (helpers and layout in queue-lua.ts; the claim
 * script in claim-script.ts). Each runs atomically on the server, so a claim and
 * the lease bookkeeping it implies can never interleave with another worker's.
 * Every script takes the same keys (`queueScriptKeys`) and starts its arguments
 * with the queue's `base` prefix and wake-up channel.
 */
function prelude(...helpers: QueueLuaFunction[]): string {
  return `${queueLua(...helpers)}
${queueTableLua(1, 1)}
`;
}

/** ARGV: base, channel, deliveryId, agencyId, runAt. Replaces any entry (dropping a live claim) and announces it. */
export const enqueueScript = new LuaScript(
  'enqueue',
  `${prelude('enqueue_entry')}
enqueue_entry(q, ARGV[3], ARGV[4], ARGV[5])
return 1
`,
);

/**
 * ARGV: base, channel, then triples (deliveryId, agencyId, runAt). Adds each
 * entry only when the delivery has none (queued or claimed); returns how many
 * were added, and announces each agency given new entries once. Used by the
 * recovery sweep, which must never disturb an entry a worker is holding.
 */
export const enqueueMissingScript = new LuaScript(
  'enqueueMissing',
  `${prelude('enqueue_entry')}
local added, seen, agencies = 0, {}, {}
for i = 3, #ARGV, 3 do
  if redis.call('HEXISTS', q.agencies, ARGV[i]) == 0 then
    enqueue_entry(q, ARGV[i], ARGV[i + 1], ARGV[i + 2], true)
    added = added + 1
    if not seen[ARGV[i + 1]] then
      seen[ARGV[i + 1]] = true
      agencies[#agencies + 1] = ARGV[i + 1]
    end
  end
end
for _, agency in ipairs(agencies) do redis.call('PUBLISH', q.channel, '*' .. agency) end
return added
`,
);

/** ARGV: base, channel, now. Read-only. When something next becomes claimable (see next_due), or nil. */
export const nextDueScript = new LuaScript(
  'nextDue',
  `${prelude('next_due')}
return next_due(q, ARGV[3])
`,
);

/**
 * ARGV: base, channel, now. Read-only. 1 when some agency may have an entry due at
 * `now`: one is in the rotation (its entries were due when it joined) or in
 * `ready` with its earliest entry due.
 */
export const anyDueScript = new LuaScript(
  'anyDue',
  `${prelude()}
if redis.call('ZCARD', q.active) > 0 then return 1 end
return #redis.call('ZRANGEBYSCORE', q.ready, '-inf', ARGV[3], 'LIMIT', 0, 1)
`,
);

/** ARGV: base, channel, deliveryId, claimId, leaseUntil. 1 when renewed. */
export const renewScript = new LuaScript(
  'renew',
  `${prelude('holds')}
if not holds(q, ARGV[3], ARGV[4]) then return 0 end
redis.call('ZADD', q.leases, ARGV[5], ARGV[3])
return 1
`,
);

/** ARGV: base, channel, deliveryId, claimId. 1 when acked. */
export const ackScript = new LuaScript(
  'ack',
  `${prelude('holds', 'drop_claim')}
local agency = holds(q, ARGV[3], ARGV[4])
if not agency then return 0 end
redis.call('HDEL', q.agencies, ARGV[3])
drop_claim(q, ARGV[3], agency)
return 1
`,
);

/** ARGV: base, channel, deliveryId, claimId, runAt. 1 when rescheduled. */
export const rescheduleScript = new LuaScript(
  'reschedule',
  `${prelude('holds', 'drop_claim', 'add_due')}
local id = ARGV[3]
local agency = holds(q, id, ARGV[4])
if not agency then return 0 end
drop_claim(q, id, agency)
add_due(q, agency, id, ARGV[5])
return 1
`,
);
