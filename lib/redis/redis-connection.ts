/**
 * The Redis connections the shared parts use: one for commands and one in
 * subscriber mode (a connection that subscribes can run nothing else). Given
 * a URL, both are made here with settings that fail fast while Redis is away;
 * given an ioredis client, it runs the commands as it is and the subscriber
 * is its `duplicate()`, so TLS, ACL user, password and sentinel settings carry
 * over to it.
 *
 * Both reconnect on their own. Channel subscriptions are counted per channel:
 * the first listener subscribes, the last one gone unsubscribes, so nothing
 * accumulates on the server however often parts come and go, and ioredis
 * subscribes again to what is left after a reconnect.
 *
 * Commands run through `run`, which refuses at once while the command
 * connection is down and bounds the rest by `commandTimeoutMs`: a request
 * needing Redis gets an error quickly, never a hang.
 */
import { Redis, type RedisOptions } from 'ioredis'
import { check, custom, group, integer, string } from '../check/option-spec.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'

export const DEFAULT_KEY_PREFIX = 'mcp:'
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000
/** Reconnect delays grow to this cap and never stop: Redis coming back must be noticed. */
const MAX_RECONNECT_DELAY_MS = 1_000
const QUIT_TIMEOUT_MS = 1_000

export interface RedisConnectionOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://...` (TLS). One of `url` and `client` is required. */
  url?: string
  /** An existing ioredis client: used for commands as it is (never closed here); its `duplicate()` subscribes. */
  client?: Redis
  /** Prepended to every key and channel, so several apps can share one Redis; default `mcp:`. */
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
function describe (url: string | undefined, client: Redis): string {
  if (url !== undefined) {
    try {
      const parsed = new URL(url)
      return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`
    } catch {
      return 'the configured Redis URL'
    }
  }
  const { host, port, path } = client.options
  return path !== undefined && path !== null && path !== '' ? `redis at ${path}` : `redis at ${host ?? '?'}:${port ?? '?'}`
}

function isClient (value: unknown): value is Redis {
  return value !== null && typeof value === 'object' && typeof (value as Redis).duplicate === 'function' &&
    typeof (value as Redis).publish === 'function'
}

/** The connection options, checked by the shared checker (lib/check/): named `redis.<key>` in errors. */
const CONNECTION = group({
  url: custom('a redis:// or rediss:// URL', (value, at) => {
    if (value !== undefined && (typeof value !== 'string' || !/^rediss?:\/\//.test(value) || !URL.canParse(value))) at.error('expected a redis:// or rediss:// URL')
    return value as string | undefined
  }),
  client: custom('an ioredis client', (value, at) => {
    if (value !== undefined && !isClient(value)) at.error('expected an ioredis client')
    return value as Redis | undefined
  }),
  prefix: string({ default: DEFAULT_KEY_PREFIX }),
  connectTimeoutMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_CONNECT_TIMEOUT_MS }),
  commandTimeoutMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_COMMAND_TIMEOUT_MS })
}, {
  required: true,
  finish: (options, at) => {
    if ((options.url === undefined) === (options.client === undefined)) at.error('give exactly one of "url" (a redis:// URL) and "client" (an ioredis client)')
    return options
  }
})

export class RedisConnection {
  readonly prefix: string
  readonly connectTimeoutMs: number
  readonly commandTimeoutMs: number
  /** The command connection (the given client, or one made from the URL). */
  readonly commands: Redis
  readonly #subscriber: Redis
  readonly #ownsCommands: boolean
  readonly #where: string
  readonly #channels = new Map<string, Set<MessageHandler>>()
  #lastError: Error | undefined
  #users = 0
  /** Set once the command connection was ready: from then on an outage fails commands at once. */
  #connectedOnce = false
  #closed: Promise<void> | undefined

  constructor (options: RedisConnectionOptions) {
    const { url, client, prefix, connectTimeoutMs, commandTimeoutMs } = check(CONNECTION, options, 'redis', (path, message) => new FST_MCP_INVALID_OPTION(path, message))
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
      this.commands = new Redis(url as string, own)
      // Ours to log nothing by default: an error event without a listener would print on every retry.
      this.commands.on('error', onError)
      this.#ownsCommands = true
    }
    this.#where = describe(url, this.commands)
    if (this.commands.status === 'ready') this.#connectedOnce = true
    else this.commands.once('ready', () => { this.#connectedOnce = true })
    this.#subscriber = this.commands.duplicate({
      lazyConnect: true,
      // SUBSCRIBE sent while reconnecting waits for the connection; ioredis subscribes again after each reconnect.
      enableOfflineQueue: true,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
      retryStrategy: reconnectDelay
    })
    this.#subscriber.on('error', onError)
    this.#subscriber.on('message', (channel: string, message: string) => {
      const handlers = this.#channels.get(channel)
      if (handlers === undefined) return
      for (const handler of handlers) handler(message)
    })
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
    await Promise.all([this.#whenReady(this.commands, deadline), this.#whenReady(this.#subscriber, deadline)])
  }

  /**
   * Runs `command` on the command connection: refused at once while it is
   * down, and rejected with RedisUnavailableError after `commandTimeoutMs`.
   */
  run<T> (command: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(new RedisUnavailableError('The Redis connection is closed'))
    if (this.commands.status !== 'ready') {
      // Not connected yet (first use before ready()): connect first, bounded by connectTimeoutMs.
      if (!this.#connectedOnce) return this.#whenReady(this.commands, Date.now() + this.connectTimeoutMs).then(() => this.run(command))
      return Promise.reject(new RedisUnavailableError(`Redis is unavailable (${this.#where}: ${this.commands.status})`, { cause: this.#lastError }))
    }
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new RedisUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms (${this.#where})`))
      }, this.commandTimeoutMs)
      timer.unref()
      command(this.commands).then(
        (value) => { clearTimeout(timer); resolve(value) },
        (err: unknown) => {
          clearTimeout(timer)
          // A reply error (a script's own error, a wrong type) is not an outage.
          if (err instanceof Error && err.name === 'ReplyError') reject(err)
          else reject(new RedisUnavailableError(`Redis command failed (${this.#where}): ${err instanceof Error ? err.message : String(err)}`, { cause: err }))
        }
      )
    })
  }

  /** PUBLISH through `run`; resolves with the number of subscribers that received it. */
  publish (channel: string, message: string): Promise<number> {
    return this.run((redis) => redis.publish(channel, message))
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
    const unsubscribe = (): void => {
      const current = this.#channels.get(channel)
      if (current === undefined || !current.delete(entry) || current.size > 0) return
      this.#channels.delete(channel)
      if (this.#closed === undefined) this.#subscriber.unsubscribe(channel).catch(() => {})
    }
    if (first) {
      if (this.#subscriber.status === 'wait') this.#subscriber.connect().catch(() => {})
      try {
        await this.#subscriber.subscribe(channel)
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
      this.#subscriber.disconnect()
      if (this.#ownsCommands) await quit(this.commands)
    })()
    return this.#closed
  }

  #whenReady (client: Redis, deadline: number): Promise<void> {
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
async function quit (client: Redis): Promise<void> {
  if (client.status === 'end') return
  if (client.status !== 'ready') {
    client.disconnect()
    return
  }
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    client.quit().catch(() => {}),
    new Promise<void>((resolve) => { timer = setTimeout(resolve, QUIT_TIMEOUT_MS) })
  ])
  clearTimeout(timer)
  if ((client.status as string) !== 'end') client.disconnect()
}

/** The options' connection, or a new one; parts accept either. */
export function connectionFrom (source: RedisConnection | RedisConnectionOptions): RedisConnection {
  return source instanceof RedisConnection ? source : new RedisConnection(source)
}
