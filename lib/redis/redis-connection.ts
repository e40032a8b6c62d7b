/**
 * The Redis connections the shared parts use: one for commands and one in
 * subscriber mode (a connection that subscribes can run nothing else). Given
 * a URL (one Redis) or cluster nodes, both are made here with settings that
 * fail fast while Redis is away; given an ioredis client (`Redis`, sentinel
 * or `Cluster`), it runs the commands as it is and the subscriber is its
 * `duplicate()`, so TLS, ACL user, password and sentinel settings carry over.
 *
 * On a Redis Cluster, channels are sharded (SSUBSCRIBE/SPUBLISH: each
 * message travels only within the shard that owns its channel's slot) when
 * the servers have it (Redis 7 and later, Valkey), classic pub/sub (every
 * message broadcast to every node) otherwise; `publish` and `subscribe` pick.
 *
 * Both reconnect on their own. Channel subscriptions are counted per channel:
 * the first listener subscribes, the last one gone unsubscribes, so nothing
 * accumulates on the server however often parts come and go, and ioredis
 * subscribes again to what is left after a reconnect. `onReconnect` tells the
 * parts when a connection that was lost is back (messages may have been
 * missed meanwhile).
 *
 * Commands run through `run`, which refuses at once while the command
 * connection is down and bounds the rest by `commandTimeoutMs` (ioredis's
 * own `commandTimeout` on one Redis made here, a timer on a cluster or a
 * given client):
 * a request needing Redis gets an error quickly, never a hang.
 */
import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from 'ioredis'
import { array, check, custom, group, integer, maybe } from '../check/option-spec.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'
import { waitAtMost } from '../common/timers.js'

export const DEFAULT_KEY_PREFIX = 'mcp:'
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000
/** Reconnect delays grow to this cap and never stop: Redis coming back must be noticed. */
const MAX_RECONNECT_DELAY_MS = 1_000
const QUIT_TIMEOUT_MS = 1_000

/** A client the parts run commands on: one Redis (or sentinel-managed), or a Redis Cluster. */
export type RedisClient = Redis | Cluster

/** A Redis Cluster to connect to. */
export interface RedisClusterOptions {
  /**
   * Some of the cluster's nodes as `redis://[[user]:password@]host:port` or
   * `rediss://...` (TLS) URLs; the client finds the others. User, password
   * and TLS are taken from the first URL and used for every node.
   */
  nodes: string[]
}

export interface RedisConnectionOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://...` (TLS). Exactly one of `url`, `cluster` and `client` is required. */
  url?: string
  /** A Redis Cluster (or Valkey cluster): its nodes' URLs. */
  cluster?: RedisClusterOptions
  /**
   * An existing ioredis client (`new Redis(...)`, a sentinel client, or `new
   * Cluster(...)`): used for commands as it is (never closed here); its
   * `duplicate()` subscribes.
   */
  client?: RedisClient
  /**
   * Prepended to every key and channel, so several apps can share one Redis;
   * default `mcp:`. No `{` or `}`: the parts add their own hash tags.
   */
  prefix?: string
  /** Bound on waiting for Redis at registration in ms; default 5000. */
  connectTimeoutMs?: number
  /** Bound on one command in ms; default 2000. */
  commandTimeoutMs?: number
}

/** Thrown (and rejected with) when Redis cannot serve a command now. */
export class RedisUnavailableError extends Error {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'RedisUnavailableError'
  }
}

export type MessageHandler = (message: string) => void

function reconnectDelay (attempt: number): number {
  return Math.min(50 * attempt, MAX_RECONNECT_DELAY_MS)
}

/** Where the connection goes, for messages (never its password). */
function describe (url: string | undefined, client: RedisClient): string {
  if (url !== undefined) {
    try {
      const parsed = new URL(url)
      return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`
    } catch {
      return 'the configured Redis URL'
    }
  }
  if (isCluster(client)) {
    const startup = (client as unknown as { startupNodes: ClusterNode[] }).startupNodes
    const nodes = startup.map((node) => typeof node === 'object' ? `${node.host ?? '?'}:${node.port ?? '?'}` : String(node).replace(/\/\/[^@/]*@/, '//'))
    return `the Redis Cluster at ${nodes.join(', ')}`
  }
  const { host, port, path } = client.options
  return path !== undefined && path !== null && path !== '' ? `redis at ${path}` : `redis at ${host ?? '?'}:${port ?? '?'}`
}

function isClient (value: unknown): value is RedisClient {
  return value !== null && typeof value === 'object' && typeof (value as Redis).duplicate === 'function' &&
    typeof (value as Redis).publish === 'function'
}

function isCluster (client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true
}

const REDIS_URL = /^rediss?:\/\//

/** The ioredis Cluster for `cluster.nodes`: startup nodes, and the user, password and TLS of the first URL. */
function clusterFrom (cluster: RedisClusterOptions, options: ClusterOptions): Cluster {
  if (cluster === null || typeof cluster !== 'object' || !Array.isArray(cluster.nodes) || cluster.nodes.length === 0 ||
    !cluster.nodes.every((url) => typeof url === 'string' && REDIS_URL.test(url) && URL.canParse(url))) {
    throw new TypeError('redis option "cluster": expected { nodes: [redis:// or rediss:// URLs of some cluster nodes] }')
  }
  const startup: ClusterNode[] = cluster.nodes.map((url) => {
    const parsed = new URL(url)
    return { host: parsed.hostname, port: parsed.port === '' ? 6379 : Number(parsed.port) }
  })
  const first = new URL(cluster.nodes[0] as string)
  const redisOptions: RedisOptions = { ...options.redisOptions }
  if (first.username !== '') redisOptions.username = decodeURIComponent(first.username)
  if (first.password !== '') redisOptions.password = decodeURIComponent(first.password)
  if (first.protocol === 'rediss:') redisOptions.tls = {}
  return new Cluster(startup, { ...options, redisOptions })
}

const REDIS_URL_SPEC = custom('a redis:// or rediss:// URL', (value, at) => {
  if (value !== undefined && (typeof value !== 'string' || !REDIS_URL.test(value) || !URL.canParse(value))) at.error('expected a redis:// or rediss:// URL')
  return value as string | undefined
})

/** The connection options, checked by the shared checker (lib/check/): named `redis.<key>` in errors. */
const CONNECTION = group({
  url: REDIS_URL_SPEC,
  cluster: maybe(group({
    nodes: array(custom(REDIS_URL_SPEC.expects, (value, at) => REDIS_URL_SPEC.read(value ?? null, at) as string, true),
      { nonEmpty: true, required: true, expects: 'a non-empty array of redis:// or rediss:// URLs of some cluster nodes' })
  })),
  client: custom('an ioredis client (Redis or Cluster)', (value, at) => {
    if (value !== undefined && !isClient(value)) at.error('expected an ioredis client (Redis or Cluster)')
    return value as RedisClient | undefined
  }),
  // A brace would change which part of a key Redis Cluster hashes, and so where the parts' keys meet.
  prefix: custom('a string without "{" or "}"', (value, at) => {
    if (value === undefined) return DEFAULT_KEY_PREFIX
    if (typeof value !== 'string') at.error('expected a string')
    if (/[{}]/.test(value as string)) at.error('must not contain "{" or "}" (the parts add their own hash tags)')
    return value as string
  }),
  connectTimeoutMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_CONNECT_TIMEOUT_MS }),
  commandTimeoutMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_COMMAND_TIMEOUT_MS })
}, {
  required: true,
  finish: (options, at) => {
    if ([options.url, options.client, options.cluster].filter((given) => given !== undefined).length !== 1) {
      at.error('give exactly one of "url" (a redis:// URL), "cluster" ({ nodes: [URLs] }) and "client" (an ioredis client)')
    }
    return options
  }
})

/** How channels are subscribed and published: classic, or sharded on a cluster whose servers have it. */
type PubSubMode = 'classic' | 'sharded'

export class RedisConnection {
  readonly prefix: string
  readonly connectTimeoutMs: number
  readonly commandTimeoutMs: number
  /** The command connection (the given client, or one made from the URL or cluster nodes). */
  readonly commands: RedisClient
  /** True on a Redis Cluster: keys that meet in one script share a hash tag. */
  readonly cluster: boolean
  #subscriber: RedisClient | undefined
  #mode: Promise<PubSubMode> | undefined
  readonly #ownsCommands: boolean
  readonly #where: string
  readonly #channels = new Map<string, Set<MessageHandler>>()
  readonly #reconnectHandlers = new Set<() => void>()
  #lastError: Error | undefined
  #users = 0
  /** Set once the command connection was ready: from then on an outage fails commands at once. */
  #connectedOnce = false
  /** A connection that had been up went down; the next `ready` is a reconnection. */
  #lost = false
  #closed: Promise<void> | undefined
  /** The wait for the first connection, while commands wait for it. */
  #firstReady: Promise<void> | undefined

  constructor (options: RedisConnectionOptions) {
    const { url, client, cluster, prefix, connectTimeoutMs, commandTimeoutMs } = check(CONNECTION, options, 'redis', (path, message) => new FST_MCP_INVALID_OPTION(path, message))
    this.prefix = prefix
    this.connectTimeoutMs = connectTimeoutMs
    this.commandTimeoutMs = commandTimeoutMs

    const onError = (err: Error): void => { this.#lastError = err }
    if (client !== undefined) {
      this.commands = client
      this.#ownsCommands = false
    } else {
      const own: RedisOptions = {
        lazyConnect: true,
        // While Redis is away a command fails at once instead of waiting in a queue.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: this.commandTimeoutMs,
        connectTimeout: this.connectTimeoutMs,
        retryStrategy: reconnectDelay
      }
      this.commands = cluster !== undefined
        ? clusterFrom(cluster, { lazyConnect: true, enableOfflineQueue: false, clusterRetryStrategy: reconnectDelay, redisOptions: own })
        : new Redis(url as string, own)
      // Ours to log nothing by default: an error event without a listener would print on every retry.
      this.commands.on('error', onError)
      this.#ownsCommands = true
    }
    this.cluster = isCluster(this.commands)
    this.#where = describe(url, this.commands)
    if (this.commands.status === 'ready') this.#connectedOnce = true
    else this.commands.once('ready', () => { this.#connectedOnce = true })
    this.#watch(this.commands)
    // One Redis: classic pub/sub on a duplicate, made now. A cluster: made once its servers tell whether they shard channels.
    if (!this.cluster) this.#subscriber = this.#makeSubscriber('classic')
  }

  /** Where this connects to (no credentials), for messages. */
  get where (): string {
    return this.#where
  }

  /** Whether commands can run right now. */
  get available (): boolean {
    return this.commands.status === 'ready'
  }

  /** Counts a part using this connection; the last one to `release` closes it. */
  retain (): this {
    this.#users++
    return this
  }

  release (): Promise<void> {
    if (this.#users > 0) this.#users--
    return this.#users === 0 ? this.close() : Promise.resolve()
  }

  /** Resolves once both connections are up, or rejects after `connectTimeoutMs`. */
  async ready (): Promise<void> {
    const deadline = Date.now() + this.connectTimeoutMs
    await this.#whenReady(this.commands, deadline)
    await this.#whenReady(await this.#subscriberMade(deadline), deadline)
  }

  /**
   * Calls `handler` each time a connection that was lost is ready again
   * (messages published meanwhile were not received, or not sent); returns
   * the function that stops it.
   */
  onReconnect (handler: () => void): () => void {
    this.#reconnectHandlers.add(handler)
    return () => { this.#reconnectHandlers.delete(handler) }
  }

  /**
   * Runs `command` on the command connection: refused at once while it is
   * down, and rejected with RedisUnavailableError after `commandTimeoutMs`.
   */
  run<T> (command: (redis: RedisClient) => Promise<T>): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(new RedisUnavailableError('The Redis connection is closed'))
    if (this.commands.status !== 'ready') {
      // Not connected yet (first use before ready()): connect first, bounded by connectTimeoutMs.
      if (!this.#connectedOnce) {
        // One wait shared by every command sent meanwhile (one listener on the client, not one each).
        this.#firstReady ??= this.#whenReady(this.commands, Date.now() + this.connectTimeoutMs).finally(() => { this.#firstReady = undefined })
        return this.#firstReady.then(() => this.run(command))
      }
      return Promise.reject(new RedisUnavailableError(`Redis is unavailable (${this.#where}: ${this.commands.status})`, { cause: this.#lastError }))
    }
    // One Redis made here has ioredis's own commandTimeout: one timer per command is enough. A Cluster
    // applies it per node only, not while it waits for its nodes (a lost cluster): it keeps this timer.
    if (this.#ownsCommands && !this.cluster) return command(this.commands).catch((err: unknown) => { throw this.#failure(err) })
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new RedisUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms (${this.#where})`))
      }, this.commandTimeoutMs)
      timer.unref()
      command(this.commands).then(
        (value) => { clearTimeout(timer); resolve(value) },
        (err: unknown) => {
          clearTimeout(timer)
          reject(this.#failure(err))
        }
      )
    })
  }

  /** A reply error (a script's own error, a wrong type) as it is: not an outage; anything else as RedisUnavailableError. */
  #failure (err: unknown): Error {
    if (err instanceof Error && err.name === 'ReplyError') return err
    return new RedisUnavailableError(`Redis command failed (${this.#where}): ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }

  /** PUBLISH (SPUBLISH on a sharding cluster) through `run`; resolves with the number of subscribers that received it. */
  async publish (channel: string, message: string): Promise<number> {
    const mode = await this.#pubSubMode(Date.now() + this.connectTimeoutMs)
    return await this.run(async (redis) => Number(mode === 'sharded' ? await redis.spublish(channel, message) : await redis.publish(channel, message)))
  }

  /**
   * Calls `handler` with each message on `channel` until the returned function
   * is called. Resolves once Redis confirmed the subscription (at once when the
   * channel is already subscribed).
   */
  async subscribe (channel: string, handler: MessageHandler): Promise<() => void> {
    if (this.#closed !== undefined) throw new RedisUnavailableError('The Redis connection is closed')
    let handlers = this.#channels.get(channel)
    const first = handlers === undefined
    if (handlers === undefined) this.#channels.set(channel, handlers = new Set())
    const entry: MessageHandler = (message) => handler(message)
    handlers.add(entry)
    let sharded = false
    const unsubscribe = (): void => {
      const current = this.#channels.get(channel)
      if (current === undefined || !current.delete(entry) || current.size > 0) return
      this.#channels.delete(channel)
      const subscriber = this.#subscriber
      if (this.#closed === undefined && subscriber !== undefined) {
        (sharded ? subscriber.sunsubscribe(channel) : subscriber.unsubscribe(channel)).catch(() => {})
      }
    }
    if (first) {
      try {
        const deadline = Date.now() + this.connectTimeoutMs
        const subscriber = await this.#subscriberMade(deadline)
        sharded = await this.#pubSubMode(deadline) === 'sharded'
        if (subscriber.status === 'wait') subscriber.connect().catch(() => {})
        await (sharded ? subscriber.ssubscribe(channel) : subscriber.subscribe(channel))
      } catch (err) {
        unsubscribe()
        throw new RedisUnavailableError(`Could not subscribe to ${channel} (${this.#where})`, { cause: err })
      }
    }
    return unsubscribe
  }

  /** Closes the subscriber and, when made here, the command connection. Idempotent. */
  close (): Promise<void> {
    this.#closed ??= (async () => {
      this.#channels.clear()
      this.#reconnectHandlers.clear()
      this.#subscriber?.disconnect()
      if (this.#ownsCommands) await quit(this.commands)
    })()
    return this.#closed
  }

  /** Classic or sharded pub/sub: asked once of a cluster (COMMAND INFO SPUBLISH), classic on one Redis. */
  #pubSubMode (deadline: number): Promise<PubSubMode> {
    if (!this.cluster) return Promise.resolve('classic')
    if (this.#mode === undefined) {
      const asking = this.#whenReady(this.commands, deadline)
        .then(() => this.run((redis) => redis.command('INFO', 'SPUBLISH')))
        .then((info) => Array.isArray(info) && Array.isArray(info[0]) ? 'sharded' as const : 'classic' as const)
      // Asked again next time when Redis could not answer now.
      asking.catch(() => { if (this.#mode === asking) this.#mode = undefined })
      this.#mode = asking
    }
    return this.#mode
  }

  /** The subscriber connection, made on first need (on a cluster, once the pub/sub mode is known). */
  async #subscriberMade (deadline: number): Promise<RedisClient> {
    if (this.#subscriber !== undefined) return this.#subscriber
    const mode = await this.#pubSubMode(deadline)
    if (this.#closed !== undefined) throw new RedisUnavailableError('The Redis connection is closed')
    this.#subscriber ??= this.#makeSubscriber(mode)
    return this.#subscriber
  }

  #makeSubscriber (mode: PubSubMode): RedisClient {
    const onMessage = (channel: string, message: string): void => {
      const handlers = this.#channels.get(channel)
      if (handlers === undefined) return
      for (const handler of handlers) handler(message)
    }
    let subscriber: RedisClient
    if (isCluster(this.commands)) {
      subscriber = this.commands.duplicate([], {
        lazyConnect: true,
        enableOfflineQueue: true,
        // One subscriber connection per master, each subscribed to the channels of its slots.
        shardedSubscribers: mode === 'sharded',
        clusterRetryStrategy: reconnectDelay
      })
      // A shard's subscriber lost and its channels subscribed again.
      subscriber.on('-subscriber', () => this.#markLost())
      subscriber.on('subscribersReady', () => this.#markBack())
    } else {
      subscriber = this.commands.duplicate({
        lazyConnect: true,
        // SUBSCRIBE sent while reconnecting waits for the connection; ioredis subscribes again after each reconnect.
        enableOfflineQueue: true,
        autoResubscribe: true,
        maxRetriesPerRequest: null,
        retryStrategy: reconnectDelay
      })
    }
    subscriber.on('error', (err: Error) => { this.#lastError = err })
    subscriber.on('message', onMessage)
    subscriber.on('smessage', onMessage)
    this.#watch(subscriber)
    return subscriber
  }

  /** Notes when `client` loses its connection after having had it, and when it is back. */
  #watch (client: RedisClient): void {
    let up = client.status === 'ready'
    client.on('ready', () => {
      up = true
      this.#markBack()
    })
    client.on('close', () => {
      if (up) this.#markLost()
      up = false
    })
  }

  #markLost (): void {
    if (this.#closed === undefined) this.#lost = true
  }

  #markBack (): void {
    if (!this.#lost || this.#closed !== undefined) return
    this.#lost = false
    // After the current event: ioredis subscribes again in its own ready handler.
    setImmediate(() => {
      for (const handler of this.#reconnectHandlers) handler()
    })
  }

  #whenReady (client: RedisClient, deadline: number): Promise<void> {
    if (client.status === 'ready') return Promise.resolve()
    if (client.status === 'end' || this.#closed !== undefined) {
      return Promise.reject(new RedisUnavailableError(`The Redis connection to ${this.#where} is closed`))
    }
    if (client.status === 'wait') client.connect().catch(() => {})
    return new Promise<void>((resolve, reject) => {
      let seen: Error | undefined
      const onReady = (): void => { done(); resolve() }
      const onError = (err: Error): void => { seen = err }
      const onEnd = (): void => { done(); reject(new RedisUnavailableError(`The Redis connection to ${this.#where} ended`, { cause: seen })) }
      const timer = setTimeout(() => {
        done()
        const why = seen ?? this.#lastError
        reject(new RedisUnavailableError(`Redis is unreachable: no connection to ${this.#where} within ${this.connectTimeoutMs} ms` +
          (why !== undefined ? ` (${why.message})` : ''), { cause: why }))
      }, Math.max(0, deadline - Date.now()))
      const done = (): void => {
        clearTimeout(timer)
        client.off('ready', onReady)
        client.off('error', onError)
        client.off('end', onEnd)
      }
      client.on('ready', onReady)
      client.on('error', onError)
      client.on('end', onEnd)
    })
  }
}

/** QUIT, bounded; a connection that cannot say goodbye is dropped. */
async function quit (client: RedisClient): Promise<void> {
  if (client.status === 'end') return
  if (client.status !== 'ready') {
    client.disconnect()
    return
  }
  await waitAtMost(client.quit().catch(() => {}), QUIT_TIMEOUT_MS)
  if ((client.status as string) !== 'end') client.disconnect()
}

/** The options' connection, or a new one; parts accept either. */
export function connectionFrom (source: RedisConnection | RedisConnectionOptions): RedisConnection {
  return source instanceof RedisConnection ? source : new RedisConnection(source)
}
