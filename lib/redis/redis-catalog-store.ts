/**
 * The catalogue store on Redis (lib/parts/catalog-store.ts): one hash of the
 * latest record per subject and one counter for their sequence numbers,
 * under one hash tag (`{<prefix>catalog}:...`, so one slot, one master on a
 * cluster), written by one script so the number and the record agree.
 * Records read back are checked before use.
 */
import { type CatalogChange, type CatalogStore, isRecordedChange, MAX_CATALOG_RECORDS, type RecordedChange, subjectOf } from '../parts/catalog-store.js'
import { ConnectionUse } from './connection-use.js'
import { type RedisConnection, type RedisConnectionOptions } from './redis-connection.js'

const KEY_SPACE = 'catalog'

/** KEYS: counter, records. ARGV: subject, record JSON, bound. Returns the sequence number, or -1 when full. */
const RECORD = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
local seq = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], ARGV[1], seq .. ' ' .. ARGV[2])
return seq
`

export class RedisCatalogStore implements CatalogStore {
  readonly #use: ConnectionUse
  readonly #counter: string
  readonly #records: string

  /** Uses `connection` (shared with the other Redis parts, released on close) or one made from its options. */
  constructor (connection: RedisConnection | RedisConnectionOptions) {
    this.#use = new ConnectionUse(connection)
    const tag = '{' + this.#use.connection.prefix + KEY_SPACE + '}:'
    this.#counter = tag + 'seq'
    this.#records = tag + 'records'
  }

  /** The connection, retained from this part's first command (lib/redis/connection-use.ts). */
  get #connection (): RedisConnection {
    return this.#use.get()
  }

  async record (change: CatalogChange): Promise<number> {
    const seq = Number(await this.#connection.run((redis) => redis.eval(RECORD, 2, this.#counter, this.#records, subjectOf(change), JSON.stringify(change), MAX_CATALOG_RECORDS)))
    if (seq < 0) throw new Error(`the catalogue store holds ${MAX_CATALOG_RECORDS} records already`)
    return seq
  }

  async read (): Promise<RecordedChange[]> {
    const all = await this.#connection.run((redis) => redis.hgetall(this.#records))
    const out: RecordedChange[] = []
    for (const value of Object.values(all)) {
      const space = value.indexOf(' ')
      let record: unknown
      try {
        record = { ...JSON.parse(value.slice(space + 1)), seq: Number(value.slice(0, space)) }
      } catch {
        continue
      }
      if (isRecordedChange(record)) out.push(record)
    }
    return out.sort((a, b) => a.seq - b.seq)
  }

  /** Releases the connection (closed once its last user lets go). */
  async close (): Promise<void> {
    await this.#use.release()
  }
}
