import { LuaScript } from '../connection/lua-script';

/*
 * The delivery list's filters on Redis: event type, entity and creation window,
 * with status and the id cursor. Every list walks one index whose members sort by
 * delivery id (newest first is a reverse lex range) and checks the other filters
 * on the delivery's hash, so the question is which index to walk and over which
 * ids.
 *
 * - Event type and entity: per-agency ZSETs `ix-type:<agency>` and
 *   `ix-entity:<agency>` whose members are `<byte length>:<value>:<id>`. One
 *   type's (or entity's) deliveries are then one contiguous range in id order, so
 *   a rare type or an entity's handful of deliveries is read without walking the
 *   agency's log; the length prefix means no value can run into another or into
 *   the id (`job-1` never matches `job-10`). One ZSET per agency rather than one
 *   per value keeps the key count flat. A status change moves nothing here: the
 *   walk checks the status on the hash.
 * - Which index: of the agency's full list, its status list and the type and
 *   entity ranges that apply, the one ZLEXCOUNT (O(log n)) finds smallest within
 *   the id bounds. So `eventType` + `status=pending` walks whichever of the two is
 *   shorter.
 * - Creation window: no index of its own. The filter is on `createdAt`, the order
 *   by id, and the service makes both from one clock, so an id's leading 48-bit
 *   time (UUIDv7) is within a few ms of its `createdAt`. Each agency keeps in
 *   `list-skew` the largest gap between the two over its deliveries (updated by
 *   every insert in the same script). With gap k, a delivery created in
 *   [since, until) has an id time in [since − k, until + k), which is an id range:
 *   the walk starts at the window's newest ids and stops at its oldest, and
 *   checks `createdAt` exactly. Exact whatever k is; only the cost grows with it
 *   (a gap of years, as in tests that set times by hand, widens the range to the
 *   whole log; an id that is not a lowercase UUID sets "no bound"). A ZSET by
 *   `createdAt` was the alternative: it finds a window's deliveries directly, but
 *   not its newest ids, so a page of a wide window would sort the whole window,
 *   and it costs every delivery a third index entry.
 *
 * Deliveries written before these indexes existed (or, during a rolling upgrade,
 * by an older release) are in neither the type index nor the skew. Every
 * delivery has exactly one type entry, so a filtered list first compares the
 * type index's size with the full list's (two O(1) ZCARDs); when they differ, or
 * a window meets an agency whose skew is unknown, the script answers `repair`
 * and the store walks that agency once in chunks (`repairFilterIndexScript`,
 * then `pruneFilterIndexScript` for entries whose delivery an older release
 * deleted), then lists without the check.
 */

/** The largest time a UUIDv7 carries (48 bits of ms). */
export const MAX_ID_TIME = 2 ** 48 - 1;
const HEX = '[0-9a-f]';

/** Lua helpers shared by the insert, purge, list and count scripts. */
export const LIST_FILTER_LUA = `
local function seg(value) return #value .. ':' .. value .. ':' end

local function id_time(id)
  if not string.find(id, '^${HEX.repeat(8)}%-${HEX.repeat(4)}') then return nil end
  return tonumber(string.sub(id, 1, 8), 16) * 65536 + tonumber(string.sub(id, 10, 13), 16)
end

local function time_prefix(t)
  local high = math.floor(t / 65536)
  return string.format('%04x%04x-%04x', math.floor(high / 65536), high % 65536, t % 65536)
end

local function merge_skew(current, id, created)
  local partial = string.sub(current, 1, 1) == '~'
  local body = partial and string.sub(current, 2) or current
  local t = id_time(id)
  local value = 'x'
  if body ~= 'x' and t then value = string.format('%.0f', math.max(tonumber(body), math.abs(created - t))) end
  return (partial and '~' or '') .. value
end

local function note_skew(base, agency, id, created, fresh)
  local key = base .. 'list-skew'
  local current = redis.call('HGET', key, agency)
  if fresh then current = '0' elseif not current then return end
  redis.call('HSET', key, agency, merge_skew(current, id, created))
end

local function index_filters(base, agency, id, event_type, entity)
  redis.call('ZADD', base .. 'ix-type:' .. agency, 0, seg(event_type) .. id)
  if entity then redis.call('ZADD', base .. 'ix-entity:' .. agency, 0, seg(entity) .. id) end
end

local function unindex_filters(base, agency, id, event_type, entity)
  if event_type then redis.call('ZREM', base .. 'ix-type:' .. agency, seg(event_type) .. id) end
  if entity then redis.call('ZREM', base .. 'ix-entity:' .. agency, seg(entity) .. id) end
end

-- The id range [lo, hi) holding every delivery created in [since_ms, until_ms) when
-- no id's time is more than k from its createdAt; nil: no bound on that side.
local function window_ids(k, since_ms, until_ms)
  local lo, hi = nil, nil
  if since_ms and since_ms - k > 0 then lo = time_prefix(math.min(since_ms - k, ${MAX_ID_TIME})) end
  if until_ms and until_ms + k <= ${MAX_ID_TIME} then hi = time_prefix(math.max(until_ms + k, 0)) end
  return lo, hi
end

-- ZRANGEBYLEX bounds of the members after \`prefix\` whose ids are in [lo, hi) (nil: unbounded).
local function lex_range(prefix, lo, hi)
  local min = lo and ('[' .. prefix .. lo) or (prefix == '' and '-' or '[' .. prefix)
  local max = hi and ('(' .. prefix .. hi) or (prefix == '' and '+' or '(' .. prefix .. '\\255')
  return min, max
end

local function record_filters(fields)
  if fields.y then return fields.y, fields.n end
  local record = cjson.decode(fields.r)
  return record.eventType, type(record.entityId) == 'string' and record.entityId or false
end
`;

/**
 * Lua: `walk_filtered(all, base, agency, limit, q, visit)` calls `visit(id, f)` for up to
 * `limit` of the agency's deliveries that match the filters of `q` (before, status,
 * has_type, event_type, has_entity, entity, since_ms, until_ms, check), newest first;
 * `all` is the agency's ix:all. `f` holds the hash's r, u, s, c, y, n, or with `q.record`
 * false, g (the agency id) in place of r, which is then never copied into the script (a
 * payload may be large). Answers `'repair'`, having visited nothing, when `q.check` finds
 * the agency's filter indexes or skew in need of one. The filtered list and a recovery's
 * page replay share it.
 */
export const FILTERED_WALK_LUA = `${LIST_FILTER_LUA}
local function walk_filtered(all, base, agency, limit, q, visit)
  local types = base .. 'ix-type:' .. agency
  local total = redis.call('ZCARD', all)
  -- An agency without deliveries has nothing to list, and nothing to repair either.
  if total == 0 then return end
  if q.check and redis.call('ZCARD', types) ~= total then return 'repair' end

  local lo, hi = nil, nil
  if q.before ~= '' then hi = q.before end
  if q.since_ms or q.until_ms then
    local skew = redis.call('HGET', base .. 'list-skew', agency)
    if q.check and (not skew or string.sub(skew, 1, 1) == '~') then return 'repair' end
    local k = skew and tonumber(skew)
    if k then
      local window_hi
      lo, window_hi = window_ids(k, q.since_ms, q.until_ms)
      if window_hi and (not hi or window_hi < hi) then hi = window_hi end
    end
  end

  local sources = { { all, '' } }
  if q.status ~= '' then sources[#sources + 1] = { base .. 'ix:' .. q.status .. ':' .. agency, '' } end
  if q.has_type then sources[#sources + 1] = { types, seg(q.event_type) } end
  if q.has_entity then sources[#sources + 1] = { base .. 'ix-entity:' .. agency, seg(q.entity) } end
  local key, prefix, fewest = nil, nil, nil
  for _, source in ipairs(sources) do
    local min, max = lex_range(source[2], lo, hi)
    local count = redis.call('ZLEXCOUNT', source[1], min, max)
    if not fewest or count < fewest then key, prefix, fewest = source[1], source[2], count end
  end

  local function matches(hash, f)
    if q.status ~= '' and f[3] ~= q.status then return false end
    local created = tonumber(f[4])
    if (q.since_ms and created < q.since_ms) or (q.until_ms and created >= q.until_ms) then return false end
    if q.has_type or q.has_entity then
      -- Only a hash written before the filter indexes lacks y, and needs its record decoded.
      local r = q.record and f[1] or (not f[5] and redis.call('HGET', hash, 'r')) or nil
      local record_type, record_entity = record_filters({ r = r, y = f[5], n = f[6] })
      if q.has_type and record_type ~= q.event_type then return false end
      if q.has_entity and record_entity ~= q.entity then return false end
    end
    return true
  end

  -- Without the record, the agency id (in every hash) still tells a delivery that exists.
  local first = q.record and 'r' or 'g'
  local min, max = lex_range(prefix, lo, hi)
  local found = 0
  while found < limit do
    local members = redis.call('ZREVRANGEBYLEX', key, max, min, 'LIMIT', 0, math.max(limit - found, 32))
    if #members == 0 then break end
    for _, member in ipairs(members) do
      local id = string.sub(member, #prefix + 1)
      local hash = base .. 'd:' .. id
      local f = redis.call('HMGET', hash, first, 'u', 's', 'c', 'y', 'n')
      if f[1] and matches(hash, f) then
        visit(id, f)
        found = found + 1
        if found == limit then break end
      end
    end
    max = '(' .. members[#members]
  end
end
`;

/**
 * KEYS: ix:all of the agency (the others are derived from `base`). ARGV: base,
 * agencyId, limit, beforeId (''), status (''), hasType ('1'|'0'), eventType,
 * hasEntity, entityId, since (''), until (''), check ('1': answer `repair` when the
 * agency's filter indexes or skew need one). Returns flat pairs (r, u or ''),
 * newest first, or the string `repair`. Read-only.
 */
export const listFilteredScript = new LuaScript(
  'listDeliveriesFiltered',
  `${FILTERED_WALK_LUA}
local out = {}
local answer = walk_filtered(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), {
  before = ARGV[4], status = ARGV[5], has_type = ARGV[6] == '1', event_type = ARGV[7],
  has_entity = ARGV[8] == '1', entity = ARGV[9], since_ms = tonumber(ARGV[10]),
  until_ms = tonumber(ARGV[11]), check = ARGV[12] == '1', record = true,
}, function(_, f)
  out[#out + 1] = f[1]
  out[#out + 1] = f[2] or ''
end)
if answer == 'repair' then return 'repair' end
return out
`,
);

/**
 * KEYS: ix:all of the agency. ARGV: base, agencyId, first ('1' on the first chunk),
 * after (the last id of the previous chunk), count. Adds up to `count` of the
 * agency's deliveries, in id order, to its type and entity indexes (copying type
 * and entity onto hashes written before the indexes existed) and folds them into
 * its skew, which stays marked partial (`~`) from the first chunk to the last.
 * Returns the last id done, or nil when the walk is over.
 */
export const repairFilterIndexScript = new LuaScript(
  'repairFilterIndex',
  `${LIST_FILTER_LUA}
local base, agency, first, count = ARGV[1], ARGV[2], ARGV[3] == '1', tonumber(ARGV[5])
local skew_key = base .. 'list-skew'
local skew = redis.call('HGET', skew_key, agency) or '~0'
if first and string.sub(skew, 1, 1) ~= '~' then skew = '~' .. skew end
local ids = redis.call('ZRANGEBYLEX', KEYS[1], first and '-' or '(' .. ARGV[4], '+', 'LIMIT', 0, count)
for _, id in ipairs(ids) do
  local key = base .. 'd:' .. id
  local f = redis.call('HMGET', key, 'r', 'c', 'y', 'n')
  if f[1] then
    local event_type, entity = record_filters({ r = f[1], y = f[3], n = f[4] })
    if not f[3] then
      redis.call('HSET', key, 'y', event_type)
      if entity then redis.call('HSET', key, 'n', entity) end
    end
    index_filters(base, agency, id, event_type, entity or nil)
    skew = merge_skew(skew, id, tonumber(f[2]))
  end
end
if #ids < count then
  redis.call('HSET', skew_key, agency, (string.gsub(skew, '^~', '')))
  return false
end
redis.call('HSET', skew_key, agency, skew)
return ids[#ids]
`,
);

/**
 * KEYS: a type or entity index of the agency, its ix:all. ARGV: first ('1'), after
 * (the last member of the previous chunk), count. Removes, of up to `count`
 * members, those whose delivery is no longer in the agency's list (deleted by an
 * older release, which knew nothing of these indexes). Returns the last member
 * looked at, or nil when the walk is over.
 */
export const pruneFilterIndexScript = new LuaScript(
  'pruneFilterIndex',
  `
local first, count = ARGV[1] == '1', tonumber(ARGV[3])
local members = redis.call('ZRANGEBYLEX', KEYS[1], first and '-' or '(' .. ARGV[2], '+', 'LIMIT', 0, count)
for _, member in ipairs(members) do
  local colon = string.find(member, ':', 1, true)
  local id = string.sub(member, colon + tonumber(string.sub(member, 1, colon - 1)) + 2)
  if not redis.call('ZSCORE', KEYS[2], id) then redis.call('ZREM', KEYS[1], member) end
end
if #members < count then return false end
return members[#members]
`,
);
