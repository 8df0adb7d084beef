import { LuaScript } from '../connection/lua-script';
import { queueLua, queueTableLua } from '../queue/queue-lua';
import { LIST_FILTER_LUA } from './list-filter-lua';

/**
 * Lua scripts of the Redis store: every change that touches more than one key
 * runs as one script, so indexes never disagree with records, even when a
 * process dies halfway through a write. Every configuration change also
 * publishes the agency id, which keeps linked stores' caches coherent.
 *
 * Layout (see key-names.ts): a delivery is a HASH `d:<id>` with `r` (the record
 * as inserted, JSON), `u` (the last update, JSON; absent before the first), the
 * fields scripts compare or route on: `s` status, `a` attempt, `g` agencyId,
 * `e` eventId, `c` createdAt, and its attempt history, one field per attempt:
 * `t<n>` the attempt numbered n (JSON). Kept in the delivery's own hash, the
 * history is written by the update that records it and deleted with it, and
 * costs no key of its own. Per agency: ZSETs `ix:all:<agency>` and
 * `ix:<status>:<agency>` (every score 0, so members sort by id, which is
 * time-ordered), a HASH `evt:<agency>` eventId → deliveryId, and a HASH
 * `cb:<agency>` of its circuit breaker (`version` and the state's fields); for the
 * list's filters, ZSETs `ix-type:<agency>` and `ix-entity:<agency>`, the hash
 * fields `y` eventType and `n` entityId (absent when null), and the agency's field
 * of `list-skew` (see list-filter-lua.ts). Globally: `pending` (deliveryId →
 * nextRetryAt), `finished:success` and `finished:failed` (deliveryId → createdAt),
 * and `finished`, the mixed set of earlier releases that purges drain.
 * Keys derived inside a script from `base` share the declared keys' hash tag.
 */

/**
 * Retention. Finished deliveries are kept per status, `finished:success` and
 * `finished:failed` (deliveryId → createdAt), so a purge of one status reads only
 * its own oldest entries, never the other status's that a longer retention keeps.
 * `finished` is the mixed set of releases before those: nothing is added to it any
 * more, and every purge drains it first, deleting the entries of the status it
 * purges and moving the others to their own set, so each old entry is read once.
 */
const PURGE_LUA = `${LIST_FILTER_LUA}
-- Deletes a delivery with its index entries and event id when its status is \`status\`
-- (any finished one when nil); true when deleted.
local function delete_finished(base, id, status)
  local key = base .. 'd:' .. id
  local f = redis.call('HMGET', key, 'g', 's', 'e', 'y', 'n')
  if not f[1] or f[2] == 'pending' or (status and f[2] ~= status) then return false end
  redis.call('ZREM', base .. 'ix:all:' .. f[1], id)
  redis.call('ZREM', base .. 'ix:' .. f[2] .. ':' .. f[1], id)
  unindex_filters(base, f[1], id, f[4] or nil, f[5] or nil)
  local events = base .. 'evt:' .. f[1]
  if redis.call('HGET', events, f[3]) == id then redis.call('HDEL', events, f[3]) end
  redis.call('DEL', key)
  return true
end

-- Up to \`limit\` of the status's own set created before \`cutoff\`, oldest first.
local function purge_status(base, status, cutoff, limit)
  local set = base .. 'finished:' .. status
  local ids = redis.call('ZRANGEBYSCORE', set, '-inf', '(' .. cutoff, 'LIMIT', 0, limit)
  local removed = 0
  for _, id in ipairs(ids) do
    redis.call('ZREM', set, id)
    if delete_finished(base, id, status) then removed = removed + 1 end
  end
  return removed
end

-- The mixed set: up to \`limit\` deleted (of \`status\`, or any when nil), at most
-- 4 × limit entries read, so a call stays short however the old entries are mixed.
local function purge_legacy(base, legacy, status, cutoff, limit)
  local removed, budget = 0, 4 * limit
  while removed < limit and budget > 0 do
    local batch = math.min(limit - removed, budget)
    local found = redis.call('ZRANGEBYSCORE', legacy, '-inf', '(' .. cutoff, 'WITHSCORES', 'LIMIT', 0, batch)
    if #found == 0 then break end
    budget = budget - #found / 2
    for index = 1, #found, 2 do
      local id = found[index]
      redis.call('ZREM', legacy, id)
      local current = redis.call('HGET', base .. 'd:' .. id, 's')
      if current and current ~= 'pending' then
        if status == nil or current == status then
          if delete_finished(base, id, current) then removed = removed + 1 end
        else
          redis.call('ZADD', base .. 'finished:' .. current, found[index + 1], id)
        end
      end
    end
  end
  return removed
end

-- Up to \`limit\` finished deliveries created before \`cutoff\`, of \`status\` (nil: both).
local function purge(base, legacy, cutoff, limit, status)
  local removed = purge_legacy(base, legacy, status, cutoff, limit)
  for _, each in ipairs(status and { status } or { 'success', 'failed' }) do
    if removed < limit then removed = removed + purge_status(base, each, cutoff, limit - removed) end
  end
  return removed
end
`;

/**
 * KEYS: cfg, configs. ARGV: id, agencyId, webhookUrl, enabled (1|0), subscribedEventTypes (JSON), now,
 * signingSecret, configChannel, signatureScheme, signingKeys (JSON); each of the last two '' when not
 * given: an update keeps the stored field, a create writes 'service' and '[]'. Announces the change (the
 * agency id) to linked stores' configuration caches. Indexes the agency on every write, so an update
 * also indexes a configuration written before the index existed. Returns { created (1|0), HGETALL… }.
 */
export const upsertConfigScript = new LuaScript(
  'upsertConfig',
  `
local created = 0
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'webhookUrl', ARGV[3], 'enabled', ARGV[4], 'subscribedEventTypes', ARGV[5], 'updatedAt', ARGV[6])
  redis.call('HDEL', KEYS[1], 'disabledAt', 'disabledReason')
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'signatureScheme', ARGV[9]) end
  if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'signingKeys', ARGV[10]) end
else
  created = 1
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'agencyId', ARGV[2], 'webhookUrl', ARGV[3], 'enabled', ARGV[4],
    'subscribedEventTypes', ARGV[5], 'signingSecret', ARGV[7], 'createdAt', ARGV[6], 'updatedAt', ARGV[6],
    'signatureScheme', ARGV[9] ~= '' and ARGV[9] or 'service', 'signingKeys', ARGV[10] ~= '' and ARGV[10] or '[]')
end
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('PUBLISH', ARGV[8], ARGV[2])
local fields = redis.call('HGETALL', KEYS[1])
table.insert(fields, 1, created)
return fields
`,
);

/**
 * KEYS: cfg. ARGV: signingSecret, now, configChannel, agencyId, compare ('1' to compare-and-set, '0'),
 * expectedSigningSecret. Returns HGETALL; empty when there is no configuration or, comparing, when the
 * stored secret is not the expected one.
 */
export const setSecretScript = new LuaScript(
  'setSigningSecret',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
if ARGV[5] == '1' and redis.call('HGET', KEYS[1], 'signingSecret') ~= ARGV[6] then return {} end
redis.call('HSET', KEYS[1], 'signingSecret', ARGV[1], 'updatedAt', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS: cfg. ARGV: signingKeys (JSON), now, configChannel, agencyId. Replaces the key list and
 * `updatedAt`, nothing else (a disabled configuration stays disabled), and returns HGETALL; empty, having
 * written nothing, when there is no configuration (a bare HSET would create a hash without the others).
 */
export const setSigningKeysScript = new LuaScript(
  'setSigningKeys',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('HSET', KEYS[1], 'signingKeys', ARGV[1], 'updatedAt', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS: cfg. ARGV: reason, now, expectedUpdatedAt, configChannel, agencyId. Disables the configuration
 * (compare-and-set: only while enabled and `updatedAt` is the expected one) and returns HGETALL; empty
 * when the precondition failed or there is no configuration.
 */
export const disableConfigScript = new LuaScript(
  'disableConfig',
  `
if redis.call('HGET', KEYS[1], 'enabled') ~= '1' then return {} end
if redis.call('HGET', KEYS[1], 'updatedAt') ~= ARGV[3] then return {} end
redis.call('HSET', KEYS[1], 'enabled', '0', 'disabledAt', ARGV[2], 'disabledReason', ARGV[1], 'updatedAt', ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return redis.call('HGETALL', KEYS[1])
`,
);

/** KEYS: cfg, configs. ARGV: configChannel, agencyId. Returns 1 when a configuration was deleted. */
export const deleteConfigScript = new LuaScript(
  'deleteConfig',
  `
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`,
);

/**
 * KEYS: configs. ARGV: base, min (lex bound: '-' or '(' .. agencyId), limit.
 * Returns up to `limit` configurations (each an HGETALL), ascending by agency id;
 * an index entry without its hash (removed by hand) is skipped, and the page filled past it. Read-only.
 */
export const listConfigsScript = new LuaScript(
  'listConfigs',
  `
local base, min, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = {}
while #out < limit do
  local ids = redis.call('ZRANGEBYLEX', KEYS[1], min, '+', 'LIMIT', 0, limit - #out)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local fields = redis.call('HGETALL', base .. 'cfg:' .. id)
    if #fields > 0 then out[#out + 1] = fields end
  end
  min = '(' .. ids[#ids]
end
return out
`,
);

/**
 * KEYS: configs. ARGV: base, then agency ids. Indexes each agency whose configuration
 * hash exists (checked here, so one deleted since it was found is never indexed).
 */
export const indexConfigsScript = new LuaScript(
  'indexConfigs',
  `
local added = 0
for index = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. 'cfg:' .. ARGV[index]) == 1 then
    added = added + redis.call('ZADD', KEYS[1], 0, ARGV[index])
  end
end
return added
`,
);

/**
 * KEYS: d, evt, ix:all, ix:<status>, pending, finished (then, linked, the queue's
 * keys in the order of `queueScriptKeys`).
 * ARGV: base, id, eventId, recordJson, status, attempt, agencyId, createdAt,
 * nextRetryAt ('' for none), retentionCutoff ('' for none), retentionBatch,
 * eventType, hasEntity ('1'|'0'), entityId (then, linked, the queue's base and channel).
 * Returns { 1 } when inserted, { 0, r, u } when the event already has a delivery.
 * Linked, a new pending delivery gets its queue entry (due at nextRetryAt) in the same step.
 * The filter indexes and the agency's skew are written in the same step; a first
 * delivery (the agency's list was empty) starts the skew afresh.
 */
function insertDeliverySource(linked: boolean): string {
  return `${PURGE_LUA}
${linked ? `${queueLua('enqueue_entry')}\n${queueTableLua(7, 15)}` : ''}
local base, id = ARGV[1], ARGV[2]
local existing = redis.call('HGET', KEYS[2], ARGV[3])
if existing then
  local found = redis.call('HMGET', base .. 'd:' .. existing, 'r', 'u')
  if found[1] then return { 0, found[1], found[2] } end
end
redis.call('HSET', KEYS[2], ARGV[3], id)
redis.call('HSET', KEYS[1], 'r', ARGV[4], 's', ARGV[5], 'a', ARGV[6], 'g', ARGV[7], 'e', ARGV[3], 'c', ARGV[8], 'y', ARGV[12])
local entity = ARGV[13] == '1' and ARGV[14] or nil
if entity then redis.call('HSET', KEYS[1], 'n', entity) end
local fresh = redis.call('ZCARD', KEYS[3]) == 0
redis.call('ZADD', KEYS[3], 0, id)
redis.call('ZADD', KEYS[4], 0, id)
index_filters(base, ARGV[7], id, ARGV[12], entity)
note_skew(base, ARGV[7], id, tonumber(ARGV[8]), fresh)
if ARGV[5] == 'pending' then
  if ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[5], ARGV[9], id)
    ${linked ? 'enqueue_entry(q, id, ARGV[7], ARGV[9])' : ''}
  end
else
  redis.call('ZADD', base .. 'finished:' .. ARGV[5], ARGV[8], id)
end
if ARGV[10] ~= '' then purge(base, KEYS[6], ARGV[10], tonumber(ARGV[11]), nil) end
return { 1 }
`;
}

export const insertDeliveryScript = new LuaScript('insertDelivery', insertDeliverySource(false));
export const insertDeliveryLinkedScript = new LuaScript('insertDeliveryLinked', insertDeliverySource(true));

/** ARGV values per delivery in {@link updateDeliveriesScript}'s call. */
export const UPDATE_ARGS_PER_DELIVERY = 9;

/**
 * KEYS: pending, finished (then, linked, the queue's keys in the order of `queueScriptKeys`).
 * ARGV: base, queueBase, queueChannel ('' unlinked), then per delivery the
 * {@link UPDATE_ARGS_PER_DELIVERY} values id, expectedStatus, expectedAttempt,
 * status, attempt, updateJson, nextRetryAt ('' for none), attemptField ('t<n>';
 * '' when the update records no attempt), attemptJson.
 * Each delivery's compare-and-set on (status, attempt), in order: moves the id
 * between status indexes and the pending/finished sets, and adds the recorded
 * attempt to the history (HSETNX: a number already there keeps its first entry).
 * Returns one element per delivery: the record's `r` field, or nil when its
 * precondition failed or it does not exist. Linked, the queue entry follows in
 * the same step: due at nextRetryAt while pending, removed once finished. One
 * script for the updates of many deliveries (the store batches concurrent calls)
 * costs Redis one call's overhead instead of one per update.
 */
function updateDeliveriesSource(linked: boolean): string {
  return `${linked ? `${queueLua('enqueue_entry', 'remove_entry')}\n${queueTableLua(3, 2)}` : ''}
local base = ARGV[1]
local function update_one(at)
  local id = ARGV[at]
  local expected_status, status, next_retry = ARGV[at + 1], ARGV[at + 3], ARGV[at + 6]
  local key = base .. 'd:' .. id
  local cur = redis.call('HMGET', key, 's', 'a', 'g', 'c', 'r')
  if not cur[1] or cur[1] ~= expected_status or cur[2] ~= ARGV[at + 2] then return false end
  redis.call('HSET', key, 's', status, 'a', ARGV[at + 4], 'u', ARGV[at + 5])
  if ARGV[at + 7] ~= '' then redis.call('HSETNX', key, ARGV[at + 7], ARGV[at + 8]) end
  if status ~= expected_status then
    redis.call('ZREM', base .. 'ix:' .. expected_status .. ':' .. cur[3], id)
    redis.call('ZADD', base .. 'ix:' .. status .. ':' .. cur[3], 0, id)
  end
  if expected_status ~= 'pending' and expected_status ~= status then
    redis.call('ZREM', base .. 'finished:' .. expected_status, id)
  end
  if status == 'pending' then
    redis.call('ZREM', KEYS[2], id)
    if next_retry ~= '' then
      redis.call('ZADD', KEYS[1], next_retry, id)
      ${linked ? 'enqueue_entry(q, id, cur[3], next_retry)' : ''}
    else
      redis.call('ZREM', KEYS[1], id)
    end
  else
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZADD', base .. 'finished:' .. status, cur[4], id)
    ${linked ? 'remove_entry(q, id)' : ''}
  end
  return cur[5]
end
local replies = {}
for at = 4, #ARGV, ${UPDATE_ARGS_PER_DELIVERY} do
  replies[#replies + 1] = update_one(at)
end
return replies
`;
}

export const updateDeliveriesScript = new LuaScript('updateDeliveries', updateDeliveriesSource(false));
export const updateDeliveriesLinkedScript = new LuaScript(
  'updateDeliveriesLinked',
  updateDeliveriesSource(true),
);

/**
 * KEYS: an index ZSET. ARGV: base, max (lex bound: '+' or '(' .. id), limit.
 * Returns flat pairs (r, u or ''), newest first. Read-only.
 */
export const listDeliveriesScript = new LuaScript(
  'listDeliveries',
  `
local base, max, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out, found = {}, 0
while found < limit do
  local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], max, '-', 'LIMIT', 0, limit - found)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local f = redis.call('HMGET', base .. 'd:' .. id, 'r', 'u')
    if f[1] then
      out[#out + 1] = f[1]
      out[#out + 1] = f[2] or ''
      found = found + 1
    end
  end
  max = '(' .. ids[#ids]
end
return out
`,
);

/**
 * KEYS: d. Returns the delivery's attempt history (each attempt's JSON), in
 * ascending attempt number; empty when it has none or the delivery does not
 * exist. Read-only.
 */
export const listAttemptsScript = new LuaScript(
  'listAttempts',
  `
local numbers = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  local number = string.sub(field, 1, 1) == 't' and tonumber(string.sub(field, 2))
  if number then numbers[#numbers + 1] = number end
end
table.sort(numbers)
local out = {}
for index, number in ipairs(numbers) do out[index] = redis.call('HGET', KEYS[1], 't' .. number) end
return out
`,
);

/** KEYS: pending. ARGV: base, dueBefore, limit. Returns flat pairs (r, u or ''), oldest due first. Read-only. */
export const listDuePendingScript = new LuaScript(
  'listDuePending',
  `
local base = ARGV[1]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local f = redis.call('HMGET', base .. 'd:' .. id, 'r', 'u')
  if f[1] then
    out[#out + 1] = f[1]
    out[#out + 1] = f[2] or ''
  end
end
return out
`,
);

/**
 * KEYS: finished (the mixed set), finished:success, finished:failed. ARGV: base,
 * olderThan, limit, status ('' for both). Returns how many deliveries were deleted.
 */
export const purgeScript = new LuaScript(
  'purgeDeliveries',
  `${PURGE_LUA}
return purge(ARGV[1], KEYS[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] ~= '' and ARGV[4] or nil)
`,
);

/**
 * KEYS: cb. ARGV: expectedVersion ('' when none may be stored), then the state's
 * field/value pairs. Compare-and-set: writes the fields and the next version only
 * when the stored `version` is the expected one. Returns the version written, or
 * nil when the precondition failed.
 */
export const saveCircuitScript = new LuaScript(
  'saveCircuit',
  `
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if current then return false end
elseif current ~= ARGV[1] then
  return false
end
local version = (tonumber(current) or 0) + 1
redis.call('HSET', KEYS[1], 'version', version, unpack(ARGV, 2))
return version
`,
);
