import type {
  DeliveryRecord,
  RecoveryPageOptions,
  RecoveryPageReplay,
  RecoveryRecord,
  WebhookStore,
} from '@svc/webhooks-core';
import { cursorEventType, replayUpdate } from '@svc/webhooks-core/adapter-kit';
import type { RedisClient } from '../connection/connection';
import { LuaScript } from '../connection/lua-script';
import { unexpectedReply } from '../errors';
import {
  deliveryKey,
  listIndexKey,
  queueScriptKeys,
  type RedisStoreKeyNames,
  recoveryKey,
} from '../key-names';
import type { RedisLink } from '../linked/redis-link';
import { queueLua, queueTableLua } from '../queue/queue-lua';
import { FILTERED_WALK_LUA } from './list-filter-lua';
import { decodeDelivery } from './store-codec';

/*
 * A bulk recovery's page, opened and replayed in one script: the walk's filtered
 * list finds the page, each delivery is made pending where it is stored, and the
 * recovery's hash gets the page's end. Nothing travels to the worker but the ids,
 * which is what a recovery running beside other agencies' deliveries costs less for:
 * listing a page and replaying it with compare-and-sets moves every record to the
 * worker and back, twice parsed.
 *
 * The replay's update is written in Lua from the last update (`u`), or from the
 * record (`r`) for a delivery never updated, as core's `replayUpdate` makes it: as
 * text when `u` has the shape the worker writes, through cjson otherwise. Three kinds
 * of record are left to the worker instead, in the same page: text that Redis's JSON
 * decoder refuses (an unpaired surrogate, which JavaScript's JSON allows), numbers it
 * would round (it keeps 14 significant digits), and a never-updated record over
 * 16 KB (decoding it would hold Redis up). The store replays those right after the script
 * with an ordinary compare-and-set; the page is open by then, so a walk that dies
 * in between leaves them to the worker that takes the recovery over.
 */

/** Longest record (`r`) the script decodes; a delivery never updated with a longer one is left to the caller. */
const MAX_DECODED_RECORD_BYTES = 16_384;

/**
 * KEYS: the recovery's hash, the agency's ix:all, pending, finished (then, linked,
 * the queue's keys in the order of `queueScriptKeys`). ARGV: base, queueBase,
 * queueChannel ('' unlinked), expectedVersion, limit, beforeId (''), hasType
 * ('1'|'0'), eventType, since, until, check ('1'), now, leaseUntil.
 * Returns false for a stale version, `repair` (nothing written) when the filter
 * indexes need one, or flat pairs (id, 1 replayed | 0 left to the caller), newest
 * first; an empty page writes nothing.
 */
function replayPageSource(linked: boolean): string {
  // A replay whose delivery still has a queue entry (left by a crash) has it replaced, as
  // updateDelivery would; the rest are queued together.
  const queueEach = linked
    ? `if redis.call('HEXISTS', q.agencies, id) == 1 then enqueue_entry(q, id, agency, now, true)
    else unqueued[#unqueued + 1] = id end`
    : '';
  const queueAll = linked
    ? `enqueue_new_entries(q, agency, unqueued, now)
  redis.call('PUBLISH', q.channel, '*' .. agency)`
    : '';
  return `${FILTERED_WALK_LUA}
${linked ? `${queueLua('enqueue_entry', 'enqueue_new_entries')}\n${queueTableLua(5, 2)}` : queueLua('call_chunked', 'scored')}
local UPDATE_NUMBERS = { 'attempt', 'lastAttemptAt', 'deliveredAt', 'lastResponseCode' }

-- The common last update, as the worker writes it (ownUpdate's fields in their order, a
-- failed delivery without a retry): rewritten as text, every other field kept byte for byte.
-- Nil for any other shape, which goes through cjson below.
local function replay_text(u, now_text)
  local attempt, rest = string.match(u,
    '^{"status":"failed","attempt":(%d+),"maxAttempts":%d+,"nextRetryAt":null,(.*),"nextAttemptTrigger":"%a+"}$')
  if not attempt or #attempt > 9 then return nil end
  if not string.find(rest, '^"lastAttemptAt":[^,]*,"deliveredAt":[^,]*,"lastResponseCode":[^,]*,"lastErrorMessage":') then
    return nil
  end
  return '{"status":"pending","attempt":' .. attempt .. ',"maxAttempts":' .. (tonumber(attempt) + 1) ..
    ',"nextRetryAt":' .. now_text .. ',' .. rest .. ',"nextAttemptTrigger":"recovery"}'
end

-- The update core's replayUpdate writes, as JSON; nil when cjson cannot carry it exactly.
-- The last update holds every field it needs (older releases' lack only the trigger, which
-- the replay sets), so the record is read only for a delivery never updated, and only when
-- short: a large payload would hold Redis up for the whole page.
local function replay_update(hash, u, now, now_text)
  local text = u and replay_text(u, now_text)
  if text then return text end
  local source = u
  if not source then
    if redis.call('HSTRLEN', hash, 'r') > ${MAX_DECODED_RECORD_BYTES} then return nil end
    source = redis.call('HGET', hash, 'r')
  end
  local ok, record = pcall(cjson.decode, source)
  if not ok then return nil end
  if type(record.attempt) ~= 'number' then return nil end
  for _, name in ipairs(UPDATE_NUMBERS) do
    local value = record[name]
    if type(value) == 'number' and (value ~= math.floor(value) or math.abs(value) >= 1e14) then return nil end
  end
  return cjson.encode({
    status = 'pending',
    attempt = record.attempt,
    maxAttempts = record.attempt + 1,
    nextRetryAt = now,
    lastAttemptAt = record.lastAttemptAt,
    deliveredAt = record.deliveredAt,
    lastResponseCode = record.lastResponseCode,
    lastErrorMessage = record.lastErrorMessage,
    lastResponseExcerpt = record.lastResponseExcerpt,
    nextAttemptTrigger = 'recovery',
  })
end

local base, now = ARGV[1], tonumber(ARGV[12])
local version = redis.call('HGET', KEYS[1], 'version')
if not version or version ~= ARGV[4] then return false end
local agency = redis.call('HGET', KEYS[1], 'agencyId')
local page = {}
local answer = walk_filtered(KEYS[2], base, agency, tonumber(ARGV[5]), {
  before = ARGV[6], status = 'failed', has_type = ARGV[7] == '1', event_type = ARGV[8],
  has_entity = false, entity = '', since_ms = tonumber(ARGV[9]), until_ms = tonumber(ARGV[10]),
  check = ARGV[11] == '1', record = false,
}, function(id, f) page[#page + 1] = { id, f[2] } end)
if answer == 'repair' then return 'repair' end
if #page == 0 then return {} end

redis.call('HSET', KEYS[1], 'pageEndId', page[#page][1], 'leaseUntil', ARGV[13], 'version', tonumber(version) + 1)
-- Each replay's record is written on its own; the index moves and the queue entries of
-- the whole page are made in a few variadic calls.
local out, replayed, unqueued = {}, {}, {}
for _, entry in ipairs(page) do
  local id = entry[1]
  local update = replay_update(base .. 'd:' .. id, entry[2], now, ARGV[12])
  if update then
    redis.call('HSET', base .. 'd:' .. id, 's', 'pending', 'u', update)
    replayed[#replayed + 1] = id
    ${queueEach}
  end
  out[#out + 1] = id
  out[#out + 1] = update and 1 or 0
end
if #replayed > 0 then
  call_chunked('ZREM', base .. 'ix:failed:' .. agency, replayed, 1)
  call_chunked('ZADD', base .. 'ix:pending:' .. agency, scored(0, replayed), 2)
  call_chunked('ZREM', base .. 'finished:failed', replayed, 1)
  call_chunked('ZREM', KEYS[4], replayed, 1)
  call_chunked('ZADD', KEYS[3], scored(now, replayed), 2)
  ${queueAll}
end
return out
`;
}

const replayPageScript = new LuaScript('replayRecoveryPage', replayPageSource(false));
const replayPageLinkedScript = new LuaScript('replayRecoveryPageLinked', replayPageSource(true));

/** The store's `replayRecoveryPage` on Redis (see above). */
export function createRecoveryPageReplayer(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  link: RedisLink | undefined,
  repairOnce: (agencyId: string) => Promise<void>,
  updateDelivery: WebhookStore['updateDelivery'],
): (recovery: RecoveryRecord, page: RecoveryPageOptions) => Promise<RecoveryPageReplay | null> {
  const script = link ? replayPageLinkedScript : replayPageScript;
  const queueArgs = link ? [link.queueKeys.base, link.queueKeys.wakeChannel] : ['', ''];
  const run = (recovery: RecoveryRecord, page: RecoveryPageOptions, check: boolean) => {
    const eventType = cursorEventType(recovery);
    return script.run(
      client,
      [
        recoveryKey(keys.base, recovery.id),
        listIndexKey(keys.base, recovery.agencyId),
        keys.pending,
        keys.finished,
        ...(link ? queueScriptKeys(link.queueKeys) : []),
      ],
      [
        keys.base,
        ...queueArgs,
        recovery.version,
        page.limit,
        recovery.cursorId ?? '',
        eventType === undefined ? '0' : '1',
        eventType ?? '',
        recovery.since,
        recovery.until,
        check ? '1' : '0',
        page.now,
        page.leaseUntil,
      ],
    );
  };

  /**
   * A delivery the script left: replayed here with a compare-and-set, when it is still failed.
   * It reads the hash itself rather than through the store's `getDelivery`, which on the
   * linked pair may answer from a claim's snapshot: this read must see what Redis holds now.
   */
  const replayLeft = async (deliveryId: string, now: number): Promise<boolean> => {
    const [inserted, update] = await client.hmget(deliveryKey(keys.base, deliveryId), 'r', 'u');
    const current = inserted ? decodeDelivery(inserted, update) : null;
    if (current?.status !== 'failed') return false;
    const expected = { status: current.status, attempt: current.attempt };
    const saved: DeliveryRecord | null = await updateDelivery(
      deliveryId,
      expected,
      replayUpdate(current, now, 'recovery'),
    );
    return saved !== null;
  };

  return async (recovery, page) => {
    let reply = await run(recovery, page, true);
    if (reply === 'repair') {
      await repairOnce(recovery.agencyId);
      reply = await run(recovery, page, false);
    }
    if (reply === null) return null;
    if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpectedReply('replayRecoveryPage', reply);
    if (reply.length === 0) return { recovery, replayedIds: [] };
    const replayedIds: string[] = [];
    for (let index = 0; index < reply.length; index += 2) {
      const deliveryId = String(reply[index]);
      if (reply[index + 1] === 1) {
        replayedIds.push(deliveryId);
        link?.handOff.note(deliveryId, { kind: 'enqueued', agencyId: recovery.agencyId, runAt: page.now });
      } else if (await replayLeft(deliveryId, page.now)) {
        replayedIds.push(deliveryId);
      }
    }
    const opened: RecoveryRecord = {
      ...recovery,
      eventTypes: recovery.eventTypes?.slice() ?? null,
      pageEndId: String(reply[reply.length - 2]),
      leaseUntil: page.leaseUntil,
      version: recovery.version + 1,
    };
    return { recovery: opened, replayedIds };
  };
}
