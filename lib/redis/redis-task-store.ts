/**
 * The task store on Redis (ioredis): task records shared by every instance
 * behind a load balancer. Each transition is one Lua script, so it is atomic
 * (terminal states stay final, two instances racing to finish one task cannot
 * both win), and so are the bounds: the count in all, the count per owner and
 * the bytes, with finished tasks evicted first, oldest first.
 *
 * Keys, under `{<prefix>tasks}:` (the connection's prefix, default `mcp:`,
 * so several apps can share a Redis; the braces are a hash tag):
 *
 *   task:<id>        hash: owner, ok (owner key), status, msg, created, updated,
 *                    ttl, exp (ms), bytes, result | error (JSON text)
 *   task:<id>:in     hash: outstanding questions to the client, key -> JSON
 *   task:<id>:ans    hash: recorded answers not yet taken, key -> JSON
 *   tasks, done      sorted sets of all / finished task ids, scored by expiry
 *                    (ms x 1000 + a creation sequence: ties keep creation order)
 *   owner:<ok>, odone:<ok>   the same per owner (ok = SHA-256 of the owner)
 *   sizes, bytes     bytes per task id, bytes in all; seq: the creation sequence
 *
 * A task's keys expire with its TTL (PEXPIREAT); the indexes drop expired ids
 * lazily, in the scripts that read them.
 *
 * Scripts build key names from that base, which they are given as KEYS[1]
 * (and ARGV[1]): on a Redis Cluster the hash tag puts every key of the store
 * in one slot, so each script runs whole on the node owning it, and the
 * bounds stay exact and atomic. The store is small (a few keys per task);
 * the event bus and answer router spread over the cluster.
 *
 * Reads (`get`) are a script that only reads, not a MULTI/EXEC transaction:
 * Redis refuses MULTI when it is out of memory (maxmemory, noeviction) but
 * still serves reads, so tasks stay readable when Redis is full.
 */
import { createHash, randomUUID } from 'node:crypto'
import { ConnectionUse } from './connection-use.js'
import { type RedisClient, type RedisConnection, type RedisConnectionOptions } from './redis-connection.js'
import {
  type AnswerOutcome,
  type AskOutcome,
  type Change,
  type CreateOutcome,
  encodeObject,
  NOT_JSON_REASON,
  type StoredTask,
  type TaskLimits,
  type TaskStatus,
  type TaskStore,
  type TaskStoreFactory,
  tooLargeReason,
  unkeptResult,
  STORE_FULL_REASON
} from '../parts/task-store.js'
import type { JsonObject } from '../protocol/jsonrpc.js'

/** After the connection's prefix: the task store's own namespace. */
const KEY_SPACE = 'tasks'

/** Functions shared by the scripts; `P` is the key prefix (ARGV[1]). */
const LIB = `
local P = ARGV[1]
local function tkey(id) return P .. 'task:' .. id end
local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end
local function remove(id)
  local k = tkey(id)
  local ok = redis.call('HGET', k, 'ok')
  local size = tonumber(redis.call('HGET', P .. 'sizes', id) or '0')
  if size ~= 0 then redis.call('DECRBY', P .. 'bytes', size) end
  redis.call('HDEL', P .. 'sizes', id)
  redis.call('DEL', k, k .. ':in', k .. ':ans')
  redis.call('ZREM', P .. 'tasks', id)
  redis.call('ZREM', P .. 'done', id)
  if ok then
    redis.call('ZREM', P .. 'owner:' .. ok, id)
    redis.call('ZREM', P .. 'odone:' .. ok, id)
  end
end
local function scoreOf(ms) return string.format('%.0f', ms * 1000 + 999) end
local function prune(now)
  -- Bounded work per call (1024 ids); whatever is left goes on the next calls.
  for _ = 1, 8 do
    local expired = redis.call('ZRANGEBYSCORE', P .. 'tasks', '-inf', scoreOf(now), 'LIMIT', 0, 128)
    for _, id in ipairs(expired) do remove(id) end
    if #expired < 128 then return end
  end
end
local function evict(zdone)
  local ids = redis.call('ZRANGE', zdone, 0, 0)
  if #ids == 0 then return false end
  remove(ids[1])
  return true
end
local function grow(id, size)
  if size == 0 then return end
  redis.call('HINCRBY', tkey(id), 'bytes', size)
  redis.call('HINCRBY', P .. 'sizes', id, size)
  redis.call('INCRBY', P .. 'bytes', size)
end
local function room(id, size, maxTask, maxStored)
  if size <= 0 then return nil end
  if tonumber(redis.call('HGET', tkey(id), 'bytes')) + size > maxTask then return 'too-large' end
  while tonumber(redis.call('GET', P .. 'bytes') or '0') + size > maxStored do
    if not evict(P .. 'done') then return 'full' end
  end
  return nil
end
local function sizeOf(key)
  local total = 0
  for _, v in ipairs(redis.call('HVALS', key)) do total = total + string.len(v) end
  return total
end
local function snap(id, changed)
  local k = tkey(id)
  local f = redis.call('HMGET', k, 'status', 'msg', 'created', 'updated', 'ttl', 'owner')
  return { changed, f[1], f[2], f[3], f[4], f[5], f[6], redis.call('HGETALL', k .. ':in') }
end
local function expireWith(id, key)
  redis.call('PEXPIREAT', key, redis.call('HGET', tkey(id), 'exp'))
end
`

/** ARGV: P, id, owner, ok, nowIso, nowMs, ttlMs, maxTasks, maxPerOwner */
const CREATE = LIB + `
local id, owner, ok, nowIso, nowMs, ttl = ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local maxTasks, maxPerOwner = tonumber(ARGV[8]), tonumber(ARGV[9])
local ownerSet, ownerDone = P .. 'owner:' .. ok, P .. 'odone:' .. ok
prune(nowMs)
redis.call('ZREMRANGEBYSCORE', ownerSet, '-inf', scoreOf(nowMs))
redis.call('ZREMRANGEBYSCORE', ownerDone, '-inf', scoreOf(nowMs))
if redis.call('ZCARD', ownerSet) >= maxPerOwner and not evict(ownerDone) then return 'owner-full' end
if redis.call('ZCARD', P .. 'tasks') >= maxTasks and not evict(P .. 'done') then return 'full' end
local exp = nowMs + ttl
local score = string.format('%.0f', exp * 1000 + redis.call('INCR', P .. 'seq') % 1000)
local k = tkey(id)
redis.call('HSET', k, 'owner', owner, 'ok', ok, 'status', 'working', 'created', nowIso, 'updated', nowIso,
  'ttl', ttl, 'exp', string.format('%.0f', exp), 'score', score, 'bytes', 0)
redis.call('PEXPIREAT', k, exp)
redis.call('ZADD', P .. 'tasks', score, id)
redis.call('ZADD', ownerSet, score, id)
redis.call('HSET', P .. 'sizes', id, 0)
-- Index keys outlive the newest task a little, so an abandoned prefix empties itself.
for _, key in ipairs({ P .. 'tasks', P .. 'done', P .. 'sizes', P .. 'bytes', P .. 'seq', ownerSet, ownerDone }) do
  redis.call('PEXPIREAT', key, exp + 60000)
end
return snap(id, 1)
`

/** ARGV: P, id, key, text, nowIso, maxTask, maxStored */
const ASK = LIB + `
local id, key, text, nowIso = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local k = tkey(id)
local status = redis.call('HGET', k, 'status')
if not status then return 'gone' end
if terminal(status) then return 'finished' end
local old = redis.call('HGET', k .. ':in', key)
local size = string.len(text) - (old and string.len(old) or 0)
local refused = room(id, size, tonumber(ARGV[6]), tonumber(ARGV[7]))
if refused then return refused end
redis.call('HSET', k .. ':in', key, text)
expireWith(id, k .. ':in')
grow(id, size)
redis.call('HSET', k, 'status', 'input_required', 'updated', nowIso)
return snap(id, 1)
`

/** ARGV: P, id, owner, nowIso, maxTask, maxStored, then key, text pairs */
const ANSWER = LIB + `
local id, owner, nowIso = ARGV[2], ARGV[3], ARGV[4]
local k = tkey(id)
local f = redis.call('HMGET', k, 'owner', 'status')
if f[1] ~= owner then return nil end
local accepted, size = {}, 0
if not terminal(f[2]) then
  for i = 7, #ARGV, 2 do
    local old = redis.call('HGET', k .. ':in', ARGV[i])
    if old then
      accepted[#accepted + 1] = i
      size = size + string.len(ARGV[i + 1]) - string.len(old)
    end
  end
end
if #accepted == 0 then
  local out = snap(id, 0)
  out[9] = {}
  return out
end
local refused = room(id, size, tonumber(ARGV[5]), tonumber(ARGV[6]))
if refused then return refused end
local keys = {}
for _, i in ipairs(accepted) do
  redis.call('HDEL', k .. ':in', ARGV[i])
  redis.call('HSET', k .. ':ans', ARGV[i], ARGV[i + 1])
  keys[#keys + 1] = ARGV[i]
end
expireWith(id, k .. ':ans')
grow(id, size)
if redis.call('HLEN', k .. ':in') == 0 then redis.call('HSET', k, 'status', 'working') end
redis.call('HSET', k, 'updated', nowIso)
local out = snap(id, 1)
out[9] = keys
return out
`

/** ARGV: P, id */
const TAKE = LIB + `
local id = ARGV[2]
local key = tkey(id) .. ':ans'
local all = redis.call('HGETALL', key)
if #all == 0 then return all end
local size = 0
for i = 2, #all, 2 do size = size + string.len(all[i]) end
redis.call('DEL', key)
if redis.call('EXISTS', tkey(id)) == 1 then grow(id, -size) end
return all
`

/** ARGV: P, id. Reads only (allowed when Redis is out of memory): the task's fields and its questions. */
const READ = LIB + `
local k = tkey(ARGV[2])
return { redis.call('HGETALL', k), redis.call('HGETALL', k .. ':in') }
`

/** ARGV: P, id, message, nowIso */
const MESSAGE = LIB + `
local id = ARGV[2]
local k = tkey(id)
local f = redis.call('HMGET', k, 'status', 'msg')
if not f[1] then return nil end
if terminal(f[1]) or f[2] == ARGV[3] then return snap(id, 0) end
redis.call('HSET', k, 'msg', ARGV[3], 'updated', ARGV[4])
return snap(id, 1)
`

/**
 * Ends an unfinished task. ARGV: P, id, owner ('' = any), status, field
 * ('result', 'error' or ''), text, message ('' = none), nowIso, maxStored,
 * then the error and message kept instead when the store has no room.
 */
const FINISH = LIB + `
local id, owner, status, field, text, msg, nowIso = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local k = tkey(id)
local f = redis.call('HMGET', k, 'owner', 'status', 'bytes', 'ok', 'score')
if not f[2] or (owner ~= '' and f[1] ~= owner) then return nil end
if terminal(f[2]) then return snap(id, 0) end
redis.call('DEL', k .. ':in', k .. ':ans')
grow(id, -tonumber(f[3]))
if field ~= '' then
  if room(id, string.len(text), string.len(text), tonumber(ARGV[9])) then
    status, field, text, msg = 'failed', 'error', ARGV[10], ARGV[11]
  end
  redis.call('HSET', k, field, text)
  grow(id, string.len(text))
end
redis.call('HSET', k, 'status', status, 'updated', nowIso)
if msg == '' then redis.call('HDEL', k, 'msg') else redis.call('HSET', k, 'msg', msg) end
redis.call('ZADD', P .. 'done', f[5], id)
redis.call('ZADD', P .. 'odone:' .. f[4], f[5], id)
return snap(id, 1)
`

type Reply = unknown[]

interface ScriptClient {
  mcpTaskCreate (...args: Array<string | number>): Promise<string | Reply>
  mcpTaskAsk (...args: Array<string | number>): Promise<string | Reply>
  mcpTaskAnswer (...args: Array<string | number>): Promise<string | Reply | null>
  mcpTaskTake (...args: Array<string | number>): Promise<string[]>
  mcpTaskRead (...args: Array<string | number>): Promise<[string[], string[]]>
  mcpTaskMessage (...args: Array<string | number>): Promise<Reply | null>
  mcpTaskFinish (...args: Array<string | number>): Promise<Reply | null>
}

const SCRIPTS: ReadonlyArray<[keyof ScriptClient, string]> = [
  ['mcpTaskCreate', CREATE],
  ['mcpTaskAsk', ASK],
  ['mcpTaskAnswer', ANSWER],
  ['mcpTaskTake', TAKE],
  ['mcpTaskRead', READ],
  ['mcpTaskMessage', MESSAGE],
  ['mcpTaskFinish', FINISH]
]

/** The key of an owner in key names: owners can be any string, key names stay short and safe. */
function ownerKey (owner: string): string {
  return createHash('sha256').update(owner).digest('base64url')
}

/**
 * The scripts as called here (key base first, then the rest of ARGV), sent
 * with that base as KEYS[1] as well: a cluster routes a script by its keys.
 */
function keyedScripts (client: ScriptClient): ScriptClient {
  const out: Partial<Record<keyof ScriptClient, unknown>> = {}
  for (const [name] of SCRIPTS) {
    const script = client[name] as (...args: Array<string | number>) => Promise<unknown>
    out[name] = (base: string, ...rest: Array<string | number>) => script.call(client, base, base, ...rest)
  }
  return out as ScriptClient
}

function pairs (flat: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = []
  if (!Array.isArray(flat)) return out
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), String(flat[i + 1])])
  return out
}

/** A StoredTask from a script's snapshot reply (without result or error). */
function fromSnapshot (taskId: string, reply: Reply): StoredTask {
  const [, status, msg, created, updated, ttl, owner, inputs] = reply
  const inputRequests: Record<string, JsonObject> = {}
  for (const [key, text] of pairs(inputs)) inputRequests[key] = JSON.parse(text) as JsonObject
  return {
    taskId,
    owner: String(owner),
    status: String(status) as TaskStatus,
    ...(typeof msg === 'string' && { statusMessage: msg }),
    createdAt: String(created),
    lastUpdatedAt: String(updated),
    ttlMs: Number(ttl),
    inputRequests
  }
}

function toChange (taskId: string, reply: Reply | null, payload?: { result?: JsonObject, error?: JsonObject }): Change | undefined {
  if (reply === null) return undefined
  const task = fromSnapshot(taskId, reply)
  return { task: payload === undefined ? task : { ...task, ...payload }, changed: reply[0] === 1 }
}

export class RedisTaskStore implements TaskStore {
  readonly shared = true
  readonly #use: ConnectionUse
  readonly #prefix: string
  readonly #scripts: ScriptClient
  readonly #limits: TaskLimits

  /** Uses `connection` (shared with the other Redis parts, released on close) or one made from its options. */
  constructor (connection: RedisConnection | RedisConnectionOptions, limits: TaskLimits) {
    this.#use = new ConnectionUse(connection)
    const client = this.#use.connection.commands as ScriptClient & RedisClient
    for (const [name, lua] of SCRIPTS) {
      // defineCommand is per client; a client shared by several stores defines each script once.
      if (typeof client[name] !== 'function') client.defineCommand(name, { numberOfKeys: 1, lua })
    }
    this.#scripts = keyedScripts(client)
    this.#prefix = '{' + this.#use.connection.prefix + KEY_SPACE + '}:'
    this.#limits = limits
  }

  /** The connection, retained from this part's first command (lib/redis/connection-use.ts). */
  get #connection (): RedisConnection {
    return this.#use.get()
  }

  /** Runs a script through the connection: refused at once while Redis is away, bounded in time. */
  #script<T> (call: (redis: ScriptClient) => Promise<T>): Promise<T> {
    return this.#connection.run(() => call(this.#scripts))
  }

  async create (owner: string): Promise<CreateOutcome> {
    const now = Date.now()
    const taskId = randomUUID()
    const l = this.#limits
    const reply = await this.#script((r) => r.mcpTaskCreate(this.#prefix, taskId, owner, ownerKey(owner), new Date(now).toISOString(), now,
      l.ttlMs, l.maxTasks, l.maxTasksPerOwner))
    if (reply === 'full' || reply === 'owner-full') return { ok: false, reason: reply }
    return { ok: true, task: fromSnapshot(taskId, reply as Reply) }
  }

  async get (taskId: string, owner: string): Promise<StoredTask | undefined> {
    const [flatFields, flatInputs] = await this.#script((r) => r.mcpTaskRead(this.#prefix, taskId))
    const fields = Object.fromEntries(pairs(flatFields)) as Record<string, string>
    if (fields.owner !== owner || fields.status === undefined) return undefined
    const inputRequests: Record<string, JsonObject> = {}
    for (const [k, text] of pairs(flatInputs)) inputRequests[k] = JSON.parse(text) as JsonObject
    return {
      taskId,
      owner,
      status: fields.status as TaskStatus,
      ...(fields.msg !== undefined && { statusMessage: fields.msg }),
      createdAt: fields.created as string,
      lastUpdatedAt: fields.updated as string,
      ttlMs: Number(fields.ttl),
      inputRequests,
      ...(fields.result !== undefined && { result: JSON.parse(fields.result) as JsonObject }),
      ...(fields.error !== undefined && { error: JSON.parse(fields.error) as JsonObject })
    }
  }

  async ask (taskId: string, key: string, request: JsonObject): Promise<AskOutcome> {
    const text = encodeObject(request)
    if (text === undefined) return { ok: false, reason: 'too-large' }
    const reply = await this.#script((r) => r.mcpTaskAsk(this.#prefix, taskId, key, text, new Date().toISOString(),
      this.#limits.maxTaskBytes, this.#limits.maxStoredBytes))
    if (typeof reply === 'string') return { ok: false, reason: reply as 'gone' | 'finished' | 'too-large' | 'full' }
    return { ok: true, task: fromSnapshot(taskId, reply) }
  }

  async answer (taskId: string, owner: string, answers: Readonly<Record<string, JsonObject>>): Promise<AnswerOutcome | undefined> {
    const args: string[] = []
    for (const [key, answer] of Object.entries(answers)) {
      const text = encodeObject(answer)
      if (text === undefined) return { ok: false, reason: 'too-large' }
      args.push(key, text)
    }
    const reply = await this.#script((r) => r.mcpTaskAnswer(this.#prefix, taskId, owner, new Date().toISOString(),
      this.#limits.maxTaskBytes, this.#limits.maxStoredBytes, ...args))
    if (reply === null) return undefined
    if (typeof reply === 'string') return { ok: false, reason: reply as 'too-large' | 'full' }
    return { ok: true, task: fromSnapshot(taskId, reply), accepted: (reply[8] as string[]).map(String) }
  }

  async takeAnswers (taskId: string): Promise<Record<string, JsonObject>> {
    const out: Record<string, JsonObject> = {}
    for (const [key, text] of pairs(await this.#script((r) => r.mcpTaskTake(this.#prefix, taskId)))) out[key] = JSON.parse(text) as JsonObject
    return out
  }

  async setStatusMessage (taskId: string, message: string): Promise<Change | undefined> {
    return toChange(taskId, await this.#script((r) => r.mcpTaskMessage(this.#prefix, taskId, message, new Date().toISOString())))
  }

  async complete (taskId: string, result: JsonObject): Promise<Change | undefined> {
    const text = encodeObject(result)
    if (text === undefined) return this.#failUnkept(taskId, NOT_JSON_REASON)
    const size = Buffer.byteLength(text)
    if (size > this.#limits.maxTaskBytes) return this.#failUnkept(taskId, tooLargeReason(size, this.#limits.maxTaskBytes))
    const fallback = unkeptResult(STORE_FULL_REASON)
    const reply = await this.#finish(taskId, '', 'completed', 'result', text, '', fallback)
    if (reply === null || reply[0] !== 1) return toChange(taskId, reply)
    // The script may have kept the fallback failure instead of the result.
    return reply[1] === 'completed' ? toChange(taskId, reply, { result: JSON.parse(text) as JsonObject }) : toChange(taskId, reply, { error: fallback.error })
  }

  async fail (taskId: string, error: JsonObject, statusMessage: string): Promise<Change | undefined> {
    const text = encodeObject(error)
    if (text === undefined) return this.#failUnkept(taskId, NOT_JSON_REASON)
    const size = Buffer.byteLength(text)
    if (size > this.#limits.maxTaskBytes) return this.#failUnkept(taskId, tooLargeReason(size, this.#limits.maxTaskBytes))
    const fallback = unkeptResult(STORE_FULL_REASON)
    const reply = await this.#finish(taskId, '', 'failed', 'error', text, statusMessage, fallback)
    if (reply === null || reply[0] !== 1) return toChange(taskId, reply)
    return toChange(taskId, reply, { error: reply[2] === statusMessage ? JSON.parse(text) as JsonObject : fallback.error })
  }

  async cancel (taskId: string, owner: string, statusMessage: string): Promise<Change | undefined> {
    return toChange(taskId, await this.#finish(taskId, owner, 'cancelled', '', '', statusMessage, unkeptResult(STORE_FULL_REASON)))
  }

  /** Releases the connection (closed once its last user lets go; a client you gave is never closed). */
  async close (): Promise<void> {
    await this.#use.release()
  }

  async #failUnkept (taskId: string, why: string): Promise<Change | undefined> {
    const { error, statusMessage } = unkeptResult(why)
    const reply = await this.#finish(taskId, '', 'failed', 'error', JSON.stringify(error), statusMessage, { error, statusMessage })
    return reply !== null && reply[0] === 1 ? toChange(taskId, reply, { error }) : toChange(taskId, reply)
  }

  #finish (taskId: string, owner: string, status: TaskStatus, field: string, text: string, message: string,
    fallback: { error: JsonObject, statusMessage: string }): Promise<Reply | null> {
    return this.#script((r) => r.mcpTaskFinish(this.#prefix, taskId, owner, status, field, text, message, new Date().toISOString(),
      this.#limits.maxStoredBytes, JSON.stringify(fallback.error), fallback.statusMessage))
  }
}

/**
 * `scale.taskStore` for the plugin: task records on Redis, with the limits
 * of the endpoint's `tasks` option. Takes a `RedisConnection` (shared with the
 * other Redis parts) or its options (`{ url }` or `{ client }`, `prefix`, timeouts).
 */
export function redisTaskStore (connection: RedisConnection | RedisConnectionOptions): TaskStoreFactory {
  if (connection === null || typeof connection !== 'object') throw new TypeError('redisTaskStore: expected a RedisConnection or its options { url } or { client }')
  return (limits) => new RedisTaskStore(connection, limits)
}
