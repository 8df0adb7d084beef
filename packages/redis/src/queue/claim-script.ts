import { LuaScript } from '../connection/lua-script';
import { queueLua, queueTableLua } from './queue-lua';

/**
 * The claim script: fair claims across agencies (layout in queue-lua.ts).
 *
 * 1. Return up to `recoverMax` expired leases to their agencies' due sets, at
 *    their original runAt.
 * 2. Promote agencies whose earliest entry is due from `ready` to the back of the
 *    rotation (`active`), earliest first.
 * 3. Walk the rotation from the front, taking the earliest entry of each agency
 *    met until `limit` agencies gave one: excluded ones are passed over (they
 *    keep their place), one at its `perAgencyLimit` is set aside in `capped`,
 *    one with nothing due goes back to `ready`. When the rotation runs out,
 *    promote more and go on.
 * 4. When that first round left the batch short, count the picked agencies'
 *    remaining due entries and deal the rest one per agency per round while each
 *    has due entries and room under its cap, taking each agency's share in one
 *    step (its earliest entries).
 * 5. Send each served agency to the back of the rotation in the order it was
 *    last served, or out of it when it is known to have nothing due any more.
 *
 * The walk visits at most `limit + excluded + WALK_SLACK` agencies, and the rest
 * costs O(log n) per agency or entry, so a claim's cost depends neither on the
 * backlog's depth nor on the number of agencies. Every agency moved aside on the
 * way (capped, nothing due) leaves the rotation, so the next claim does not meet it.
 */

/** Agencies a claim may visit beyond `limit` and the excluded ones (capped or with nothing due) before it stops. */
const WALK_SLACK = 64;

const CLAIM_LUA = `
local function recover_expired(q, now, max)
  local expired = redis.call('ZRANGEBYSCORE', q.leases, '-inf', now, 'LIMIT', 0, max)
  for _, id in ipairs(expired) do
    local held = redis.call('HGET', q.claims, id)
    local agency = redis.call('HGET', q.agencies, id)
    -- drop_claim ends the claim and its lease; anything left half-written is dropped alone.
    if not (agency and drop_claim(q, id, agency)) then
      redis.call('ZREM', q.leases, id)
      redis.call('HDEL', q.claims, id)
    end
    if agency then add_due(q, agency, id, held and string.match(held, '^%S+ (%S+)') or now) end
  end
end

-- Moves up to max due agencies from ready to the back of the rotation, earliest
-- first, stamped from stamp on. Returns the next free stamp and how many moved.
local function promote(q, now, max, stamp)
  local due = redis.call('ZRANGEBYSCORE', q.ready, '-inf', now, 'LIMIT', 0, max)
  if #due == 0 then return stamp, 0 end
  local args = {}
  for _, agency in ipairs(due) do
    args[#args + 1] = stamp
    args[#args + 1] = agency
    stamp = stamp + 1
  end
  redis.call('ZREM', q.ready, unpack(due))
  redis.call('ZADD', q.active, unpack(args))
  return stamp, #due
end

-- Sets an agency at its cap aside: out of the rotation, its count of claimed
-- entries moved from held to capped (see drop_claim, which brings it back).
local function set_aside(q, agency, held)
  redis.call('ZREM', q.active, agency)
  redis.call('HDEL', q.held, agency)
  redis.call('HSET', q.capped, agency, held)
end

-- An agency met in the rotation gives its earliest entry when that is due and the
-- agency is under its cap: returns the pick { agency, room, entries, taken = 1 }.
-- held is its count of claimed entries (read for a whole window of the walk).
-- Otherwise moves it aside (at its cap: capped; nothing due: back to ready, or out
-- of every set when it has no entries) and returns nil. Popping at once spares a
-- count per agency when the batch fills in the first round, the many-agency case.
local function visit(q, agency, now, cap, held)
  local room = math.huge
  if cap then
    held = tonumber(held) or 0
    room = cap - held
    if room <= 0 then
      set_aside(q, agency, held)
      return nil
    end
  end
  local due = q.base .. 'due:' .. agency
  local head = redis.call('ZPOPMIN', due)
  if head[1] and tonumber(head[2]) <= tonumber(now) then
    return { agency = agency, room = room, entries = head, taken = 1 }
  end
  redis.call('ZREM', q.active, agency)
  if head[1] then
    redis.call('ZADD', due, head[2], head[1])
    redis.call('ZADD', q.ready, head[2], agency)
  end
  return nil
end

-- Walks the rotation from the front (by stamp, so agencies moved aside on the way
-- do not shift it), promoting more agencies from ready when it runs out and
-- more_ready says some may be due. Returns the picked agencies in rotation order,
-- the next free stamp, and whether the walk stopped on its budget with agencies
-- possibly left.
local function gather(q, now, limit, excluded, cap, budget, stamp, more_ready)
  local picked, cursor, more_active = {}, '-inf', true
  while #picked < limit and budget > 0 do
    local want = math.min(budget, limit - #picked + 8)
    local window = {}
    if more_active then
      window = redis.call('ZRANGEBYSCORE', q.active, cursor, '+inf', 'WITHSCORES', 'LIMIT', 0, want)
      -- A short window is the end of the rotation (agencies promoted below come after it).
      more_active = #window == want * 2
    end
    if #window == 0 then
      if not more_ready then break end
      local moved
      stamp, moved = promote(q, now, want, stamp)
      more_ready = moved == want
      more_active = moved > 0
      if moved == 0 then break end
    end
    local counts = {}
    if cap and #window > 0 then
      local names = {}
      for i = 1, #window, 2 do names[#names + 1] = window[i] end
      counts = redis.call('HMGET', q.held, unpack(names))
    end
    for i = 1, #window, 2 do
      cursor = '(' .. window[i + 1]
      budget = budget - 1
      if not excluded[window[i]] then
        local pick = visit(q, window[i], now, cap, counts[(i + 1) / 2])
        if pick then picked[#picked + 1] = pick end
      end
      if #picked == limit or budget == 0 then break end
    end
  end
  return picked, stamp, budget == 0 and #picked < limit
end

-- When the first round (one entry from each picked agency) left the batch short,
-- counts each picked agency's remaining due entries and deals the rest one per
-- agency per round while each has due entries and room under its cap, taking each
-- agency's share in one step. Returns the picked agency of each entry, in the order dealt.
local function deal(q, picked, limit, now)
  local order = {}
  for n, pick in ipairs(picked) do
    order[n] = pick
    pick.last = n
  end
  if #order == limit then return order end
  local live = {}
  for _, pick in ipairs(picked) do
    pick.due = redis.call('ZCOUNT', q.base .. 'due:' .. pick.agency, '-inf', now)
    pick.share = math.min(pick.due, pick.room - 1)
    pick.extra = 0
    if pick.share > 0 then live[#live + 1] = pick end
  end
  while #order < limit and #live > 0 do
    local still = {}
    for _, pick in ipairs(live) do
      pick.extra = pick.extra + 1
      order[#order + 1] = pick
      pick.last = #order
      if pick.extra < pick.share then still[#still + 1] = pick end
      if #order == limit then break end
    end
    live = still
  end
  for _, pick in ipairs(picked) do
    if pick.extra > 0 then
      local more = redis.call('ZPOPMIN', q.base .. 'due:' .. pick.agency, pick.extra)
      for _, value in ipairs(more) do pick.entries[#pick.entries + 1] = value end
      pick.taken = 1 + pick.extra
    end
  end
  return order
end

-- Counts each picked agency's entries in held and places the agency for the next
-- claim: out of the rotation when it is known to have nothing due any more, set
-- aside at its cap, else at the back in the order it was last served. An agency
-- whose remaining entries were not counted (the batch filled in the first round)
-- goes to the back; if nothing of it is due, the next claim that meets it moves it.
local function take(q, picked, cap, stamp)
  local back = {}
  for _, pick in ipairs(picked) do
    local held = redis.call('HINCRBY', q.held, pick.agency, pick.taken)
    if pick.due and pick.extra == pick.due then
      local head = redis.call('ZRANGE', q.base .. 'due:' .. pick.agency, 0, 0, 'WITHSCORES')
      redis.call('ZREM', q.active, pick.agency)
      if head[1] then redis.call('ZADD', q.ready, head[2], pick.agency) end
    elseif cap and pick.taken == pick.room then
      set_aside(q, pick.agency, held)
    else
      back[#back + 1] = pick
    end
  end
  if #back == 0 then return end
  table.sort(back, function(a, b) return a.last < b.last end)
  local args = {}
  for _, pick in ipairs(back) do
    args[#args + 1] = stamp
    args[#args + 1] = pick.agency
    stamp = stamp + 1
  end
  redis.call('ZADD', q.active, unpack(args))
end
`;

/**
 * ARGV: base, channel, now, leaseUntil, limit, claimToken, recoverMax,
 * perAgencyLimit ('' for none), (linked: the store's key prefix,) excluded agencyIds…
 *
 * Returns { claims, nextDue }: claims as flat quadruples (deliveryId, agencyId,
 * claimId, runAt) in the order dealt; nextDue, when fewer than `limit` were
 * claimed, when something next becomes claimable ('' for never; a capped agency's
 * entries become so when one of its leases ends, which announces it), `now` when
 * the walk stopped on its budget (claim again), and '-' when the batch was full
 * and it was not computed.
 */
function claimSource(linked: boolean): string {
  const firstExcluded = linked ? 10 : 9;
  return `${queueLua('drop_claim', 'add_due', 'next_due')}
${CLAIM_LUA}
${queueTableLua(1, 1)}
local now, lease_until, limit, token = ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
local cap = tonumber(ARGV[8])
recover_expired(q, now, tonumber(ARGV[7]))

local excluded, excluded_count = {}, 0
for i = ${firstExcluded}, #ARGV do
  excluded[ARGV[i]] = true
  excluded_count = excluded_count + 1
end

local promoted_at_most = limit + ${WALK_SLACK}
local last = redis.call('ZRANGE', q.active, -1, -1, 'WITHSCORES')
local stamp, promoted = promote(q, now, promoted_at_most, last[2] and tonumber(last[2]) + 1 or 0)
local picked, stopped
picked, stamp, stopped = gather(q, now, limit, excluded, cap, limit + excluded_count + ${WALK_SLACK}, stamp,
  promoted == promoted_at_most)
local order = deal(q, picked, limit, now)
take(q, picked, cap, stamp)

local out, leases, claims = {}, {}, {}
for n, pick in ipairs(order) do
  pick.used = (pick.used or 0) + 1
  local id, run_at = pick.entries[pick.used * 2 - 1], pick.entries[pick.used * 2]
  local claim_id = token .. '.' .. n
  leases[#leases + 1] = lease_until
  leases[#leases + 1] = id
  claims[#claims + 1] = id
  claims[#claims + 1] = claim_id .. ' ' .. run_at .. ' ' .. pick.agency
  out[#out + 1] = id
  out[#out + 1] = pick.agency
  out[#out + 1] = claim_id
  out[#out + 1] = run_at
end
local n = #order
if n > 0 then
  redis.call('ZADD', q.leases, unpack(leases))
  redis.call('HSET', q.claims, unpack(claims))
end
local next_at = '-'
if n < limit then
  if stopped then next_at = now else next_at = next_due(q, now) or '' end
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
  local f = redis.call('HMGET', ARGV[9] .. 'd:' .. out[i], 'r', 'u')
  records[#records + 1] = f[1] or ''
  records[#records + 1] = f[2] or ''
  local agency = out[i + 1]
  if not seen[agency] then
    seen[agency] = true
    configs[#configs + 1] = agency
    configs[#configs + 1] = redis.call('HGETALL', ARGV[9] .. 'cfg:' .. agency)
  end
end
return { out, next_at, records, configs }`;

/** See {@link claimSource}. */
export const claimScript = new LuaScript('claim', claimSource(false));
/** See {@link claimSource}; ARGV[9] is the store's key prefix. */
export const claimLinkedScript = new LuaScript('claimLinked', claimSource(true));
