/**
 * The session store on Redis (lib/parts/session-store.ts): legacy sessions
 * every instance reads, so any instance serves any session with no sticky
 * routing. All its keys share one hash tag (`{<prefix>sessions}:...`, so one
 * slot, one master on a cluster):
 *
 *   s:<id>         the record, `<caller digest> <JSON>`, expiring after the idle timeout
 *   all            sorted set of every session by last use, in µs (the bound in all)
 *   c:<digest>     sorted set of one caller's sessions by last use, in µs (the bound per caller)
 *
 * Each operation is one script, so the bounds hold however many instances
 * open sessions at once; times are the server's (`TIME`), so instances'
 * clocks do not matter. Idle expiry is the record key's own expiry; the
 * sorted sets drop entries older than the idle timeout whenever a session
 * is opened, so they never outgrow the bounds.
 *
 * A request naming a session is answered from a copy this instance read
 * within `lastUseStalenessMs` (min(idleTimeout / 4, 5 s); see
 * lib/parts/session-store.ts) when it has one (no round trip), else from
 * Redis (which starts the idle time again). A session ended or changed
 * on another instance is dropped from the copy when the bus tells
 * (`forget`); a session can therefore expire up to that long before its
 * last use plus the idle timeout, never after.
 */
import { createHash } from 'node:crypto'
import { lastUseStalenessMs, type SessionLimits, type SessionRecord, type SessionStore } from '../parts/session-store.js'
import { isLogLevel } from '../protocol/log-level.js'
import { ConnectionUse } from './connection-use.js'
import type { RedisClient, RedisConnection, RedisConnectionOptions } from './redis-connection.js'

const KEY_SPACE = 'sessions'
/** Copies this instance holds at most (the least recently read goes first). */
const MAX_COPIES = 10_000
/** Concurrent changes of one session retried this often before giving up. */
const MAX_UPDATE_ATTEMPTS = 5

/**
 * Microseconds on the server's clock (scores of last use: two sessions
 * opened in one millisecond keep their order), as a number and as the
 * exact string (Lua would print the number rounded to 14 digits).
 */
const NOW = `
pcall(redis.replicate_commands)
local t = redis.call('TIME')
local nowText = t[1] .. string.format('%06d', tonumber(t[2]))
local now = tonumber(nowText)
local function before (ms) return string.format('%.0f', now - tonumber(ms) * 1000) end
`

/** The caller digest a record value starts with. */
const DIGEST_OF = `
local function digestOf (value) return string.match(value, '^(%S+) ') end
`

/**
 * KEYS: all, caller set, record. ARGV: id, value, maxSessions,
 * maxSessionsPerCaller, idleTimeoutMs, record key prefix, caller key prefix.
 * Returns the ids of the sessions that made room.
 */
const CREATE = NOW + DIGEST_OF + `
local idle = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', before(idle))
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', before(idle))
local evicted = {}
local function drop (id, callerKey)
  redis.call('DEL', ARGV[6] .. id)
  redis.call('ZREM', KEYS[1], id)
  if callerKey then redis.call('ZREM', callerKey, id) end
  evicted[#evicted + 1] = id
end
while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) do
  drop(redis.call('ZRANGE', KEYS[2], 0, 0)[1], KEYS[2])
end
while redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  local value = redis.call('GET', ARGV[6] .. oldest)
  drop(oldest, value and (ARGV[7] .. digestOf(value)))
end
redis.call('SET', KEYS[3], ARGV[2], 'PX', idle)
redis.call('ZADD', KEYS[1], nowText, ARGV[1])
redis.call('ZADD', KEYS[2], nowText, ARGV[1])
redis.call('PEXPIRE', KEYS[2], idle)
return evicted
`

/** Starts a session's idle time again (KEYS: record, all, caller set; ARGV[1]: id, ARGV[idle]). */
const REFRESH = `
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('ZADD', KEYS[2], nowText, ARGV[1])
redis.call('ZADD', KEYS[3], nowText, ARGV[1])
redis.call('PEXPIRE', KEYS[3], idle)
`

/** KEYS: record, all, caller set. ARGV: id, caller digest, idleTimeoutMs. Returns the value, or false (none, or another caller's). */
const TOUCH = NOW + DIGEST_OF + `
local value = redis.call('GET', KEYS[1])
if not value or digestOf(value) ~= ARGV[2] then return false end
local idle = tonumber(ARGV[3])
` + REFRESH + `
return value
`

/** KEYS: record, all, caller set. ARGV: id, value read, new value, idleTimeoutMs. Returns 1 written, 0 gone, -1 changed meanwhile. */
const UPDATE = NOW + `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
if value ~= ARGV[2] then return -1 end
local idle = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[3], 'PX', idle)
` + REFRESH + `
return 1
`

/** KEYS: record, all, caller set. ARGV: id, caller digest. Returns 1 when the caller's session was ended. */
const DELETE = DIGEST_OF + `
local value = redis.call('GET', KEYS[1])
if not value or digestOf(value) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`

interface ScriptClient {
  mcpSessionCreate (...args: Array<string | number>): Promise<string[]>
  mcpSessionTouch (...args: Array<string | number>): Promise<string | null>
  mcpSessionUpdate (...args: Array<string | number>): Promise<number>
  mcpSessionDelete (...args: Array<string | number>): Promise<number>
}

const SCRIPTS: ReadonlyArray<[keyof ScriptClient, string]> = [
  ['mcpSessionCreate', CREATE],
  ['mcpSessionTouch', TOUCH],
  ['mcpSessionUpdate', UPDATE],
  ['mcpSessionDelete', DELETE]
]

interface Copy {
  readonly caller: string
  readonly record: SessionRecord
  readonly untilMs: number
}

/** Caller names appear in key names only as digests (they may be long, or personal). */
function digest (caller: string): string {
  return createHash('sha256').update(caller).digest('base64url')
}

/** The record of a stored value, checked; undefined when it is not one. */
function recordOf (value: string | null, caller: string): SessionRecord | undefined {
  if (value === null) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(value.slice(value.indexOf(' ') + 1))
  } catch {
    return undefined
  }
  if (parsed === null || typeof parsed !== 'object') return undefined
  const { caller: owner, uris, level } = parsed as Record<string, unknown>
  if (owner !== caller || !Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) return undefined
  if (level !== undefined && !isLogLevel(level)) return undefined
  return level === undefined ? { caller, uris } : { caller, uris, level }
}

function valueOf (callerDigest: string, record: SessionRecord): string {
  return callerDigest + ' ' + JSON.stringify(record.level === undefined ? { caller: record.caller, uris: record.uris } : { caller: record.caller, uris: record.uris, level: record.level })
}

export class RedisSessionStore implements SessionStore {
  readonly #use: ConnectionUse
  readonly #tag: string
  readonly #scripts: ScriptClient
  /** What this instance read lately, by session id; the map's order is the order of reading. */
  readonly #copies = new Map<string, Copy>()
  /** The change of each session under way on this instance (the next waits for it). */
  readonly #updating = new Map<string, Promise<void>>()

  /** Uses `connection` (shared with the other Redis parts, released on close) or one made from its options. */
  constructor (connection: RedisConnection | RedisConnectionOptions) {
    this.#use = new ConnectionUse(connection)
    const client = this.#use.connection.commands as ScriptClient & RedisClient
    for (const [name, lua] of SCRIPTS) {
      // defineCommand is per client; a client shared by several stores defines each script once.
      if (typeof client[name] !== 'function') client.defineCommand(name, { numberOfKeys: 3, lua })
    }
    this.#scripts = client
    this.#tag = '{' + this.#use.connection.prefix + KEY_SPACE + '}:'
  }

  async create (id: string, caller: string, limits: SessionLimits): Promise<string[]> {
    const callerDigest = digest(caller)
    const evicted = await this.#run((redis) => redis.mcpSessionCreate(
      this.#tag + 'all', this.#tag + 'c:' + callerDigest, this.#tag + 's:' + id,
      id, valueOf(callerDigest, { caller, uris: [] }), limits.maxSessions, limits.maxSessionsPerCaller, limits.idleTimeoutMs,
      this.#tag + 's:', this.#tag + 'c:'))
    for (const gone of evicted) this.#copies.delete(gone)
    return evicted
  }

  touch (id: string, caller: string, limits: SessionLimits): SessionRecord | undefined | Promise<SessionRecord | undefined> {
    const copy = this.#copies.get(id)
    if (copy !== undefined && copy.caller === caller && Date.now() < copy.untilMs) return copy.record
    return this.#read(id, caller, limits).then((read) => read?.record)
  }

  /** One change at a time per session on this instance; a change made meanwhile on another instance is read again and the change reapplied. */
  update (id: string, caller: string, change: (record: SessionRecord) => SessionRecord, limits: SessionLimits): Promise<SessionRecord | undefined> {
    const before = this.#updating.get(id)
    const run = (before === undefined ? this.#update(id, caller, change, limits) : before.then(() => this.#update(id, caller, change, limits), () => this.#update(id, caller, change, limits)))
    const settled = run.then(() => {}, () => {})
    this.#updating.set(id, settled)
    void settled.then(() => { if (this.#updating.get(id) === settled) this.#updating.delete(id) })
    return run
  }

  async #update (id: string, caller: string, change: (record: SessionRecord) => SessionRecord, limits: SessionLimits): Promise<SessionRecord | undefined> {
    const callerDigest = digest(caller)
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const read = await this.#read(id, caller, limits)
      if (read === undefined) return undefined
      // The session stays its caller's whatever the change says.
      const record = { ...change(read.record), caller }
      const written = await this.#run((redis) => redis.mcpSessionUpdate(...this.#keys(id, callerDigest), id, read.value, valueOf(callerDigest, record), limits.idleTimeoutMs))
      if (written === 0) {
        this.#copies.delete(id)
        return undefined
      }
      if (written === 1) {
        this.#keep(id, record, limits)
        return record
      }
    }
    throw new Error(`session ${id} changed concurrently ${MAX_UPDATE_ATTEMPTS} times; not changed`)
  }

  async delete (id: string, caller: string): Promise<boolean> {
    this.#copies.delete(id)
    const callerDigest = digest(caller)
    return await this.#run((redis) => redis.mcpSessionDelete(...this.#keys(id, callerDigest), id, callerDigest)) === 1
  }

  forget (id: string): void {
    this.#copies.delete(id)
  }

  /** Releases the connection (closed once its last user lets go). */
  async close (): Promise<void> {
    this.#copies.clear()
    await this.#use.release()
  }

  #keys (id: string, callerDigest: string): [string, string, string] {
    return [this.#tag + 's:' + id, this.#tag + 'all', this.#tag + 'c:' + callerDigest]
  }

  #run<T> (call: (redis: ScriptClient) => Promise<T>): Promise<T> {
    return this.#use.get().run(() => call(this.#scripts))
  }

  /** From Redis (the idle time starts again): the record and its stored value, kept as this instance's copy. */
  async #read (id: string, caller: string, limits: SessionLimits): Promise<{ record: SessionRecord, value: string } | undefined> {
    const callerDigest = digest(caller)
    const value = await this.#run((redis) => redis.mcpSessionTouch(...this.#keys(id, callerDigest), id, callerDigest, limits.idleTimeoutMs))
    const record = recordOf(value, caller)
    if (record === undefined || value === null) {
      // Only this caller's copy goes: another caller naming the id must not end it for its owner.
      if (this.#copies.get(id)?.caller === caller) this.#copies.delete(id)
      return undefined
    }
    this.#keep(id, record, limits)
    return { record, value }
  }

  #keep (id: string, record: SessionRecord, limits: SessionLimits): void {
    this.#copies.delete(id)
    if (this.#copies.size >= MAX_COPIES) this.#copies.delete(this.#copies.keys().next().value as string)
    this.#copies.set(id, { caller: record.caller, record, untilMs: Date.now() + lastUseStalenessMs(limits) })
  }
}
