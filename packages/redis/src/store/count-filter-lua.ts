import { LuaScript } from '../connection/lua-script';
import { LIST_FILTER_LUA, MAX_ID_TIME } from './list-filter-lua';

/*
 * Counting what the filtered list returns, inside Redis (the layout and the
 * window's id range are list-filter-lua.ts's). The count walks the same indexes,
 * but reads a delivery's hash only when its index entry cannot prove the match:
 *
 * - One index implies every equality filter when there is at most one (the
 *   status list, the type range, the entity range; the full list for none). Then
 *   the deliveries whose id's time alone proves `createdAt` inside the window
 *   (time in [since + k, until − k), k the agency's skew) are one id range,
 *   counted by one ZLEXCOUNT, O(log n) however many there are. Only the two bands
 *   at the window's edges, each 2k wide, are walked and checked on the hash:
 *   with the service's ids k is a few ms, so a window of a million failed
 *   deliveries costs a handful of reads.
 * - With two or more equality filters (status and type, as a recovery of some
 *   event types asks) no index implies them all: the smallest range is walked
 *   and each delivery checked on its hash, on the small fields its index does
 *   not imply (a redis.call per delivery: a few µs, what the walk costs).
 *
 * A walk reads at most `budget` index members per call and answers where it
 * stopped, so the store counts a huge window in many short scripts rather than
 * one that blocks Redis. The skew the first call read is handed back and passed
 * to the next ones: the edge bands then never move under the walk, so nothing is
 * counted twice or missed when an insert meanwhile widens the agency's skew.
 */

/**
 * KEYS: ix:all of the agency. ARGV: base, agencyId, status (''), hasType
 * ('1'|'0'), eventType, hasEntity, entityId, since (''), until (''), check ('1':
 * answer `repair` when the agency's filter indexes or skew need one), skew (''
 * on the first call: read it; then what the first call answered), below ('' on
 * the first call; then the id the previous call stopped at), budget.
 * Returns { counted, next, skew }: `next` the id to pass as `below`, or false
 * when the count is complete; or the string `repair`. Read-only.
 */
export const countFilteredScript = new LuaScript(
  'countDeliveriesFiltered',
  `${LIST_FILTER_LUA}
local base, agency, status = ARGV[1], ARGV[2], ARGV[3]
local has_type, event_type, has_entity, entity = ARGV[4] == '1', ARGV[5], ARGV[6] == '1', ARGV[7]
local since_ms, until_ms, check = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10] == '1'
local skew, below, budget = ARGV[11], ARGV[12], tonumber(ARGV[13])
local first = below == ''
local types = base .. 'ix-type:' .. agency
local total = redis.call('ZCARD', KEYS[1])
-- An agency without deliveries has nothing to count, and nothing to repair either.
if total == 0 then return { 0, false, skew } end
if check and redis.call('ZCARD', types) ~= total then return 'repair' end

local windowed = since_ms or until_ms
if windowed and skew == '' then
  skew = redis.call('HGET', base .. 'list-skew', agency)
  if check and (not skew or string.sub(skew, 1, 1) == '~') then return 'repair' end
  -- Unknown or partial: no bound, every delivery checked on its hash.
  skew = skew or 'x'
end
local k = windowed and tonumber(skew)
local lo, hi = nil, nil
if k then lo, hi = window_ids(k, since_ms, until_ms) end

-- The ids [sure_lo, sure_hi) whose own time proves createdAt in the window; nil
-- bounds are open, and no window makes every id sure.
local sure, sure_lo, sure_hi = not windowed, nil, nil
if k then
  local from = since_ms and since_ms + k
  local to = until_ms and until_ms - k
  sure = (not from or from <= ${MAX_ID_TIME}) and (not to or to > 0) and (not from or not to or from < to)
  if from and from > 0 then sure_lo = time_prefix(from) end
  if to and to <= ${MAX_ID_TIME} then sure_hi = time_prefix(to) end
end

-- Each index with the filter its members match by being there.
local sources = {}
if status ~= '' then sources[#sources + 1] = { base .. 'ix:' .. status .. ':' .. agency, '', 'status' } end
if has_type then sources[#sources + 1] = { types, seg(event_type), 'type' } end
if has_entity then sources[#sources + 1] = { base .. 'ix-entity:' .. agency, seg(entity), 'entity' } end
local implied = #sources <= 1
if #sources == 0 then sources[1] = { KEYS[1], '', nil } end
local key, prefix, own, fewest = nil, nil, nil, nil
for _, source in ipairs(sources) do
  local min, max = lex_range(source[2], lo, hi)
  local count = redis.call('ZLEXCOUNT', source[1], min, max)
  if not fewest or count < fewest then key, prefix, own, fewest = source[1], source[2], source[3], count end
end

-- The walked index's own filter needs no check, and y and n are read only for one it does not imply.
local check_status = status ~= '' and own ~= 'status'
local check_type = has_type and own ~= 'type'
local check_entity = has_entity and own ~= 'entity'
local fields = (check_type or check_entity) and { 'c', 's', 'y', 'n' } or { 'c', 's' }

local function matches(id)
  local hash = base .. 'd:' .. id
  local f = redis.call('HMGET', hash, unpack(fields))
  if not f[1] then return false end
  local created = tonumber(f[1])
  if (since_ms and created < since_ms) or (until_ms and created >= until_ms) then return false end
  if check_status and f[2] ~= status then return false end
  if check_type or check_entity then
    -- Only a hash written before the filter indexes lacks y, and needs its record decoded.
    local r = not f[3] and redis.call('HGET', hash, 'r') or nil
    local record_type, record_entity = record_filters({ r = r, y = f[3], n = f[4] })
    if check_type and record_type ~= event_type then return false end
    if check_entity and record_entity ~= entity then return false end
  end
  return true
end

local counted, examined = 0, 0
-- Checks the ids in [from, to) below the cursor, newest first, until the budget is
-- spent; answers the id it stopped at, or false when none is left. Entered only
-- with budget left: a walk that spends it returns, and the call with it.
local function walk(from, to)
  local top = to
  if not first and (not top or below < top) then top = below end
  if from and top and top <= from then return false end
  local min, max = lex_range(prefix, from, top)
  repeat
    local members = redis.call('ZREVRANGEBYLEX', key, max, min, 'LIMIT', 0, budget - examined)
    if #members == 0 then return false end
    for _, member in ipairs(members) do
      if matches(string.sub(member, #prefix + 1)) then counted = counted + 1 end
    end
    examined = examined + #members
    max = '(' .. members[#members]
  until examined >= budget
  return string.sub(max, #prefix + 2)
end

local bands = { { lo, hi } }
if implied and sure then
  if first then counted = redis.call('ZLEXCOUNT', key, lex_range(prefix, sure_lo, sure_hi)) end
  bands = {}
  if sure_hi then bands[#bands + 1] = { sure_hi, hi } end
  if sure_lo then bands[#bands + 1] = { lo, sure_lo } end
end
for _, band in ipairs(bands) do
  local stopped = walk(band[1], band[2])
  if stopped then return { counted, stopped, skew } end
end
return { counted, false, skew }
`,
);
