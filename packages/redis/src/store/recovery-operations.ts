import type {
  PurgeRecoveriesOptions,
  RecoveryRecord,
  RecoveryStatus,
  RecoveryUpdate,
  WebhookStore,
} from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { LuaScript } from '../connection/lua-script';
import { unexpectedReply } from '../errors';
import {
  finishedRecoveriesIndexedKey,
  finishedRecoveriesKey,
  type RedisStoreKeyNames,
  recoveryKey,
  recoveryListKey,
  runningRecoveriesKey,
  runningRecoveryKey,
} from '../key-names';
import { createBackfillCheck, scanIds } from './config-index';

type RecoveryOperations = Pick<
  WebhookStore,
  'createRecovery' | 'getRecovery' | 'updateRecovery' | 'listRunningRecoveries' | 'listRecoveries'
> & {
  purgeRecoveries(options: PurgeRecoveriesOptions): Promise<number>;
};

/*
 * Bulk recoveries: a HASH per recovery (`rc:<id>`, one field per record field,
 * '' for null), the agency's running one (`rc-agency:<agencyId>` → id), every
 * running one by creation time (`rc-running`), every finished one by `completedAt`
 * (`rc-finished`), and every one of the agency by id (`rc-list:<agencyId>`). The
 * scripts keep them in step, so "one running per agency" and the version
 * compare-and-set are atomic, a recovery is listed exactly when it is stored, and
 * a purge deletes the hash and its list entry together.
 */

/**
 * Lua: files the recovery whose hash is `key` under `finished` (ZSET) by its
 * `completedAt` when it is finished and has one, and takes it out otherwise.
 */
const FILE_FINISHED_LUA = `
local function file_finished(key, finished)
  local f = redis.call('HMGET', key, 'id', 'status', 'completedAt')
  if not f[1] then return end
  if f[2] ~= 'running' and f[3] and f[3] ~= '' then
    redis.call('ZADD', finished, f[3], f[1])
  else
    redis.call('ZREM', finished, f[1])
  end
end
`;

/**
 * KEYS: the new recovery's hash, the agency's running key, the running ZSET, the
 * agency's list, the finished ZSET. ARGV: base, createdAt, then field/value pairs.
 * Returns {1} when stored, or {0, HGETALL of the running one}.
 */
const createRecoveryScript = new LuaScript(
  'createRecovery',
  `${FILE_FINISHED_LUA}
local running = redis.call('GET', KEYS[2])
if running then
  local fields = redis.call('HGETALL', ARGV[1] .. 'rc:' .. running)
  if #fields > 0 then return {0, fields} end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
local id = redis.call('HGET', KEYS[1], 'id')
redis.call('ZADD', KEYS[4], 0, id)
if redis.call('HGET', KEYS[1], 'status') == 'running' then
  redis.call('SET', KEYS[2], id)
  redis.call('ZADD', KEYS[3], ARGV[2], id)
else
  file_finished(KEYS[1], KEYS[5])
end
return {1}
`,
);

/**
 * KEYS: the recovery's hash, the running ZSET, the finished ZSET. ARGV: base,
 * expected version, then field/value pairs to write. Returns the HGETALL after the
 * write, or false. A write that leaves the recovery running touches the finished
 * set only when it was not running before (the walker's writes after every page skip it).
 */
const updateRecoveryScript = new LuaScript(
  'updateRecovery',
  `${FILE_FINISHED_LUA}
local version = redis.call('HGET', KEYS[1], 'version')
if not version or version ~= ARGV[2] then return false end
local wasRunning = redis.call('HGET', KEYS[1], 'status') == 'running'
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
redis.call('HSET', KEYS[1], 'version', tonumber(version) + 1)
local isRunning = redis.call('HGET', KEYS[1], 'status') == 'running'
if wasRunning and not isRunning then
  local id = redis.call('HGET', KEYS[1], 'id')
  local agencyKey = ARGV[1] .. 'rc-agency:' .. redis.call('HGET', KEYS[1], 'agencyId')
  if redis.call('GET', agencyKey) == id then redis.call('DEL', agencyKey) end
  redis.call('ZREM', KEYS[2], id)
end
if not (wasRunning and isRunning) then file_finished(KEYS[1], KEYS[3]) end
return redis.call('HGETALL', KEYS[1])
`,
);

/**
 * KEYS: the finished ZSET. ARGV: base, olderThan, limit. Deletes up to `limit`
 * recoveries finished before `olderThan`, oldest first: the hash and its entry in the
 * agency's list. An entry whose hash is gone (deleted by hand) or running again is
 * dropped without counting; at most 4 × `limit` entries are read per call, so a
 * call stays short. Returns how many recoveries were deleted.
 */
const purgeRecoveriesScript = new LuaScript(
  'purgeRecoveries',
  `
local base, limit = ARGV[1], tonumber(ARGV[3])
local removed, budget = 0, 4 * limit
while removed < limit and budget > 0 do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2], 'LIMIT', 0, math.min(limit - removed, budget))
  if #ids == 0 then break end
  budget = budget - #ids
  for _, id in ipairs(ids) do
    redis.call('ZREM', KEYS[1], id)
    local key = base .. 'rc:' .. id
    local f = redis.call('HMGET', key, 'agencyId', 'status')
    if f[1] and f[2] ~= 'running' then
      redis.call('DEL', key)
      redis.call('ZREM', base .. 'rc-list:' .. f[1], id)
      removed = removed + 1
    end
  end
end
return removed
`,
);

/**
 * KEYS: the finished ZSET. ARGV: base, then recovery ids. Files each finished one
 * under the finished set, as a write of it would (a missing one is skipped). Returns 0.
 */
const indexFinishedRecoveriesScript = new LuaScript(
  'indexFinishedRecoveries',
  `${FILE_FINISHED_LUA}
for index = 2, #ARGV do file_finished(ARGV[1] .. 'rc:' .. ARGV[index], KEYS[1]) end
return 0
`,
);

/**
 * KEYS: the agency's list. ARGV: base, max (`(<beforeId>` or `+`), limit.
 * Returns one HGETALL per recovery, newest first. Read-only. ZREVRANGEBYLEX
 * rather than ZRANGE … BYLEX REV, which needs Redis 6.2 and the store supports 6.0.
 */
const listRecoveriesScript = new LuaScript(
  'listRecoveries',
  `
local ids = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], '-', 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for i, id in ipairs(ids) do out[i] = redis.call('HGETALL', ARGV[1] .. 'rc:' .. id) end
return out
`,
);

const UPDATE_FIELDS = [
  'status',
  'replayed',
  'cursorTypeIndex',
  'cursorId',
  'pageEndId',
  'leaseUntil',
  'completedAt',
] as const satisfies readonly (keyof RecoveryUpdate)[];

function encodeValue(value: string | number | string[] | null): string {
  if (value === null) return '';
  return Array.isArray(value) ? JSON.stringify(value) : String(value);
}

function recordFields(record: RecoveryRecord): string[] {
  return (Object.keys(record) as (keyof RecoveryRecord)[]).flatMap((field) => [
    field,
    encodeValue(record[field]),
  ]);
}

function decodeRecovery(reply: unknown): RecoveryRecord | null {
  if (!Array.isArray(reply)) throw unexpectedReply('recovery', reply);
  if (reply.length === 0) return null;
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < reply.length; index += 2)
    fields[String(reply[index])] = String(reply[index + 1]);
  return decodeRecoveryFields(fields);
}

function decodeRecoveryFields(fields: Record<string, string>): RecoveryRecord | null {
  if (fields.id === undefined) return null;
  const text = (name: string): string | null => (fields[name] ? (fields[name] as string) : null);
  const time = (name: string): number | null => (fields[name] ? Number(fields[name]) : null);
  const eventTypes = text('eventTypes');
  return {
    id: fields.id,
    agencyId: fields.agencyId ?? '',
    status: fields.status as RecoveryStatus,
    since: Number(fields.since),
    until: Number(fields.until),
    eventTypes: eventTypes === null ? null : (JSON.parse(eventTypes) as string[]),
    matched: Number(fields.matched),
    replayed: Number(fields.replayed),
    cursorTypeIndex: Number(fields.cursorTypeIndex),
    cursorId: text('cursorId'),
    pageEndId: text('pageEndId'),
    leaseUntil: time('leaseUntil'),
    createdAt: Number(fields.createdAt),
    completedAt: time('completedAt'),
    version: Number(fields.version),
  };
}

/** The store's bulk recoveries on Redis. */
export function createRecoveryOperations(client: RedisClient, keys: RedisStoreKeyNames): RecoveryOperations {
  const running = runningRecoveriesKey(keys.base);
  const finished = finishedRecoveriesKey(keys.base);
  const ensureFinishedIndexed = createFinishedRecoveryIndexCheck(client, keys.base);
  return {
    async createRecovery(record) {
      const reply = await createRecoveryScript.run(
        client,
        [
          recoveryKey(keys.base, record.id),
          runningRecoveryKey(keys.base, record.agencyId),
          running,
          recoveryListKey(keys.base, record.agencyId),
          finished,
        ],
        [keys.base, record.createdAt, ...recordFields(record)],
      );
      if (!Array.isArray(reply)) throw unexpectedReply('createRecovery', reply);
      if (reply[0] === 1)
        return { recovery: { ...record, eventTypes: record.eventTypes?.slice() ?? null }, created: true };
      const existing = decodeRecovery(reply[1]);
      if (!existing) throw unexpectedReply('createRecovery', reply);
      return { recovery: existing, created: false };
    },

    async getRecovery(recoveryId) {
      return decodeRecoveryFields(await client.hgetall(recoveryKey(keys.base, recoveryId)));
    },

    async updateRecovery(recoveryId, expectedVersion, update) {
      const pairs = UPDATE_FIELDS.flatMap((field) =>
        update[field] === undefined ? [] : [field, encodeValue(update[field] as string | number | null)],
      );
      const reply = await updateRecoveryScript.run(
        client,
        [recoveryKey(keys.base, recoveryId), running, finished],
        [keys.base, expectedVersion, ...pairs],
      );
      return reply === null ? null : decodeRecovery(reply);
    },

    async listRunningRecoveries(limit) {
      const ids = await client.zrange(running, 0, limit - 1);
      if (ids.length === 0) return [];
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.hgetall(recoveryKey(keys.base, id));
      const replies = (await pipeline.exec()) ?? [];
      const records: RecoveryRecord[] = [];
      for (const [error, fields] of replies) {
        if (error) throw error;
        const record = decodeRecoveryFields(fields as Record<string, string>);
        // Finished between the two reads: no longer running.
        if (record?.status === 'running') records.push(record);
      }
      return records;
    },

    async listRecoveries(agencyId, { limit, beforeId }) {
      const max = beforeId === undefined ? '+' : `(${beforeId}`;
      const reply = await listRecoveriesScript.run(
        client,
        [recoveryListKey(keys.base, agencyId)],
        [keys.base, max, limit],
      );
      if (!Array.isArray(reply)) throw unexpectedReply('listRecoveries', reply);
      // Only a hash deleted by hand, outside the store, leaves its id behind: skip it rather than fail the page.
      return reply.map(decodeRecovery).filter((record): record is RecoveryRecord => record !== null);
    },

    async purgeRecoveries({ olderThan, limit }) {
      await ensureFinishedIndexed();
      return Number(await purgeRecoveriesScript.run(client, [finished], [keys.base, olderThan, limit]));
    },
  };
}

/**
 * Returns a check, run before each purge, that `rc-finished` holds every finished
 * recovery. Releases before it finished recoveries without filing them there: the
 * first purge under a prefix finds every recovery hash with SCAN (a walk of the
 * whole keyspace, once) and files the finished ones, then sets `rc-finished-indexed`.
 * A recovery that a worker of an older release finishes during a rolling upgrade,
 * after that, is not filed and stays; deleting `rc-finished-indexed` makes the next
 * purge look again.
 */
function createFinishedRecoveryIndexCheck(client: RedisClient, base: string): () => Promise<void> {
  return createBackfillCheck(client, finishedRecoveriesIndexedKey(base), () =>
    scanIds(client, recoveryKey(base, ''), async (ids) => {
      await indexFinishedRecoveriesScript.run(client, [finishedRecoveriesKey(base)], [base, ...ids]);
    }),
  );
}
