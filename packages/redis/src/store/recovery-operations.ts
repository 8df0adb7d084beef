import type { RecoveryRecord, RecoveryStatus, RecoveryUpdate, WebhookStore } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { LuaScript } from '../connection/lua-script';
import { unexpectedReply } from '../errors';
import {
  type RedisStoreKeyNames,
  recoveryKey,
  recoveryListKey,
  runningRecoveriesKey,
  runningRecoveryKey,
} from '../key-names';

type RecoveryOperations = Pick<
  WebhookStore,
  'createRecovery' | 'getRecovery' | 'updateRecovery' | 'listRunningRecoveries' | 'listRecoveries'
>;

/*
 * Bulk recoveries: a HASH per recovery (`rc:<id>`, one field per record field,
 * '' for null), the agency's running one (`rc-agency:<agencyId>` → id), every
 * running one by creation time (`rc-running`), and every one of the agency by id
 * (`rc-list:<agencyId>`). The scripts keep them in step, so "one running per
 * agency" and the version compare-and-set are atomic, and a recovery is listed
 * exactly when it is stored. Nothing deletes a recovery, so the list only grows.
 */

/**
 * KEYS: the new recovery's hash, the agency's running key, the running ZSET, the
 * agency's list. ARGV: base, createdAt, then field/value pairs.
 * Returns {1} when stored, or {0, HGETALL of the running one}.
 */
const createRecoveryScript = new LuaScript(
  'createRecovery',
  `
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
end
return {1}
`,
);

/**
 * KEYS: the recovery's hash, the running ZSET. ARGV: base, expected version, then
 * field/value pairs to write. Returns the HGETALL after the write, or false.
 */
const updateRecoveryScript = new LuaScript(
  'updateRecovery',
  `
local version = redis.call('HGET', KEYS[1], 'version')
if not version or version ~= ARGV[2] then return false end
local wasRunning = redis.call('HGET', KEYS[1], 'status') == 'running'
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
redis.call('HSET', KEYS[1], 'version', tonumber(version) + 1)
if wasRunning and redis.call('HGET', KEYS[1], 'status') ~= 'running' then
  local id = redis.call('HGET', KEYS[1], 'id')
  local agencyKey = ARGV[1] .. 'rc-agency:' .. redis.call('HGET', KEYS[1], 'agencyId')
  if redis.call('GET', agencyKey) == id then redis.call('DEL', agencyKey) end
  redis.call('ZREM', KEYS[2], id)
end
return redis.call('HGETALL', KEYS[1])
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
  return {
    async createRecovery(record) {
      const reply = await createRecoveryScript.run(
        client,
        [
          recoveryKey(keys.base, record.id),
          runningRecoveryKey(keys.base, record.agencyId),
          running,
          recoveryListKey(keys.base, record.agencyId),
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
        [recoveryKey(keys.base, recoveryId), running],
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
  };
}
