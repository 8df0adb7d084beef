/**
 * Lua helpers shared by the queue's scripts and by the store's linked scripts
 * (see linked/redis-webhooks.ts), which change a delivery and its queue entry in one
 * atomic step.
 *
 * Queue layout (see key-names.ts): per agency a ZSET `due:<agencyId>` of queued
 * deliveryId → runAt. An agency sits in at most one of:
 * - `ready`, a ZSET agencyId → its earliest runAt: waiting for that time;
 * - `active`, a ZSET agencyId → rotation stamp: the round robin claims serve,
 *   lowest stamp first (claim-script.ts promotes agencies from `ready` once due);
 * - `capped`, a HASH agencyId → its claimed entries: set aside at its
 *   `perAgencyLimit` until it drops a lease.
 * An agency with queued entries is in one of them. Claimed entries: `leases`, a
 * ZSET deliveryId → leaseUntil; `claims`, a HASH deliveryId → "claimId runAt
 * agencyId"; and `held`, a HASH agencyId → claimed entries of every agency not set
 * aside (those count in `capped`). Every path that adds or drops a claim keeps the
 * two counts exact. `agencies` is a HASH deliveryId → agencyId of every entry,
 * queued or claimed.
 *
 * `active` may hold an agency with nothing due (an entry was replaced or removed,
 * or a claim took its last due entry without counting what was left): a claim
 * that meets it sends it back to `ready`, or out when it has no entries. Stamps
 * are small integers (one past the highest in use), exact as ZSET scores.
 *
 * Scripts pass the queue as a table `q` with the key names `ready`, `leases`,
 * `agencies`, `claims`, `active`, `capped`, `held`, the prefix `base` and the
 * pub/sub `channel`. Per-agency `due` keys are derived from `base`; they carry
 * the same hash tag as the declared keys, so they live in the same Redis Cluster slot.
 */

/** A Lua helper: its source and the helpers it calls, which must be defined before it. */
interface LuaFunction {
  needs: readonly QueueLuaFunction[];
  source: string;
}

/** The helpers a script can ask {@link queueLua} for. */
export type QueueLuaFunction =
  | 'drop_claim'
  | 'add_due'
  | 'unqueue'
  | 'enqueue_entry'
  | 'enqueue_new_entries'
  | 'call_chunked'
  | 'scored'
  | 'due_at'
  | 'remove_entry'
  | 'next_due'
  | 'holds';

const FUNCTIONS: Record<QueueLuaFunction, LuaFunction> = {
  drop_claim: {
    needs: [],
    source: `
-- Drops the entry's claim, when it has one (true then), and the agency's count of
-- claimed entries. An agency set aside at its cap is counted in \`capped\` instead
-- of \`held\` (HINCRBY on its missing \`held\` field gives -1): it comes back, with its
-- count, at the back of the rotation, announced like an enqueue, since its due
-- entries are claimable again in every process.
local function drop_claim(q, id, agency)
  if redis.call('HDEL', q.claims, id) == 0 then return false end
  redis.call('ZREM', q.leases, id)
  local left = redis.call('HINCRBY', q.held, agency, -1)
  if left > 0 then return true end
  redis.call('HDEL', q.held, agency)
  if left == 0 then return true end
  local parked = redis.call('HINCRBY', q.capped, agency, -1)
  redis.call('HDEL', q.capped, agency)
  -- -1: it was not set aside either (a claim taken before counts were kept).
  if parked < 0 then return true end
  if parked > 0 then redis.call('HSET', q.held, agency, parked) end
  local last = redis.call('ZRANGE', q.active, -1, -1, 'WITHSCORES')
  redis.call('ZADD', q.active, last[2] and tonumber(last[2]) + 1 or 0, agency)
  redis.call('PUBLISH', q.channel, '*' .. agency)
  return true
end`,
  },
  due_at: {
    needs: [],
    source: `
-- The agency has a new entry due at run_at. That can only make it due sooner: in
-- \`ready\` it moves up to run_at; in the rotation or capped it stays where it is.
local function due_at(q, agency, run_at)
  local head = redis.call('ZSCORE', q.ready, agency)
  if head then
    if tonumber(run_at) < tonumber(head) then redis.call('ZADD', q.ready, run_at, agency) end
  elseif not redis.call('ZSCORE', q.active, agency) and redis.call('HEXISTS', q.capped, agency) == 0 then
    redis.call('ZADD', q.ready, run_at, agency)
  end
end`,
  },
  add_due: {
    needs: ['due_at'],
    source: `
-- Queues an entry.
local function add_due(q, agency, id, run_at)
  redis.call('ZADD', q.base .. 'due:' .. agency, run_at, id)
  due_at(q, agency, run_at)
end`,
  },
  call_chunked: {
    needs: [],
    source: `
-- Runs a variadic command on key over args, \`width\` values per member, in chunks:
-- Lua's unpack holds a few thousand values at most.
local function call_chunked(command, key, args, width)
  local step = 512 * width
  for first = 1, #args, step do
    redis.call(command, key, unpack(args, first, math.min(first + step - 1, #args)))
  end
end`,
  },
  scored: {
    needs: [],
    source: `
-- ZADD's score-member arguments for ids, every one at the same score.
local function scored(score, ids)
  local args = {}
  for i, id in ipairs(ids) do args[2 * i - 1], args[2 * i] = score, id end
  return args
end`,
  },
  enqueue_new_entries: {
    needs: ['due_at', 'call_chunked', 'scored'],
    source: `
-- Queues entries of deliveries that have none (the caller made sure), all of one
-- agency and one due time, in a few variadic calls rather than a few calls each.
-- Announcing them is left to the caller.
local function enqueue_new_entries(q, agency, ids, run_at)
  if #ids == 0 then return end
  local owners = {}
  for i, id in ipairs(ids) do owners[2 * i - 1], owners[2 * i] = id, agency end
  call_chunked('HSET', q.agencies, owners, 2)
  call_chunked('ZADD', q.base .. 'due:' .. agency, scored(run_at, ids), 2)
  due_at(q, agency, run_at)
end`,
  },
  unqueue: {
    needs: [],
    source: `
-- Takes a queued entry out of its agency's due set (no-op when it is not queued).
-- With nothing left the agency leaves \`ready\` and the rotation (one set aside at its
-- cap stays so until it drops a lease); in the rotation, when its earliest entry is
-- now later (the one removed may have been its only due one), it goes back to
-- \`ready\` until due.
local function unqueue(q, id, agency)
  local due = q.base .. 'due:' .. agency
  local old = redis.call('ZSCORE', due, id)
  if not old then return end
  redis.call('ZREM', due, id)
  local head = redis.call('ZRANGE', due, 0, 0, 'WITHSCORES')
  if not head[1] then
    redis.call('ZREM', q.ready, agency)
    redis.call('ZREM', q.active, agency)
  elseif redis.call('ZSCORE', q.ready, agency) then
    redis.call('ZADD', q.ready, head[2], agency)
  elseif tonumber(head[2]) > tonumber(old) and redis.call('ZREM', q.active, agency) == 1 then
    redis.call('ZADD', q.ready, head[2], agency)
  end
end`,
  },
  enqueue_entry: {
    needs: ['drop_claim', 'unqueue', 'add_due'],
    source: `
-- Makes the delivery due at run_at, replacing any entry and dropping its claim.
-- The wake-up message names the entry (id and due time), so a listener tells
-- this enqueue from an earlier one of the same delivery (wakeup-listener.ts).
-- A script that enqueues many entries passes batched = true and announces each
-- agency once at its end (\`*<agencyId>\`), as one message wakes a worker as well as many.
local function enqueue_entry(q, id, agency, run_at, batched)
  local previous = redis.call('HGET', q.agencies, id)
  if previous and not drop_claim(q, id, previous) then unqueue(q, id, previous) end
  if previous ~= agency then redis.call('HSET', q.agencies, id, agency) end
  add_due(q, agency, id, run_at)
  if not batched then redis.call('PUBLISH', q.channel, id .. ' ' .. run_at) end
end`,
  },
  remove_entry: {
    needs: ['drop_claim', 'unqueue'],
    source: `
-- Removes the delivery's entry, queued or claimed.
local function remove_entry(q, id)
  local agency = redis.call('HGET', q.agencies, id)
  if not agency then return end
  redis.call('HDEL', q.agencies, id)
  if not drop_claim(q, id, agency) then unqueue(q, id, agency) end
end`,
  },
  next_due: {
    needs: [],
    source: `
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
end`,
  },
  holds: {
    needs: [],
    source: `
-- The agency of the entry when claim_id is its claim's, else false.
local function holds(q, id, claim_id)
  local held = redis.call('HGET', q.claims, id)
  if held == false or string.sub(held, 1, #claim_id + 1) ~= claim_id .. ' ' then return false end
  -- A claim written by an earlier version carries no agency: read it from \`agencies\`.
  return string.match(held, '^%S+ %S+ (.*)$') or redis.call('HGET', q.agencies, id)
end`,
  },
};

/**
 * The Lua source of the named helpers and of those they call, each once, callees
 * first. Each script takes only what it calls: Redis runs a script's whole chunk
 * on every call, so every helper defined costs a closure each time (figures in
 * docs/redis.md, "Scripts").
 */
export function queueLua(...names: readonly QueueLuaFunction[]): string {
  const ordered: QueueLuaFunction[] = [];
  const visit = (name: QueueLuaFunction): void => {
    if (ordered.includes(name)) return;
    for (const need of FUNCTIONS[name].needs) visit(need);
    ordered.push(name);
  };
  for (const name of names) visit(name);
  return ordered.map((name) => FUNCTIONS[name].source).join('\n');
}

/**
 * Builds the `q` table from KEYS[first .. first + 6] (ready, leases, agencies,
 * claims, active, capped, held: the order of `queueScriptKeys`) and two ARGV
 * values (base, channel) at `baseArg`, `baseArg + 1`.
 */
export function queueTableLua(firstKey: number, baseArg: number): string {
  const names = ['ready', 'leases', 'agencies', 'claims', 'active', 'capped', 'held'];
  const keys = names.map((name, index) => `${name} = KEYS[${firstKey + index}]`).join(', ');
  return `local q = { ${keys}, base = ARGV[${baseArg}], channel = ARGV[${baseArg + 1}] }`;
}
