/**
 * The catalogue store: the runtime changes of definitions that must hold on
 * every instance, kept where every instance reads them. `remove`, `disable`
 * and `enable` made through `fastify.mcp.tools` (or prompts, resources) and
 * each named change applied with `fastify.mcp.changes.apply` are recorded
 * here, the latest per subject, each with a sequence number from one counter;
 * an instance that starts later (a rolling deploy, a restart, a scale-up)
 * reads them at ready and applies them in order before its first request,
 * and an instance whose event bus was cut off reads them again once it is
 * back (lib/definitions/shared-catalog.ts).
 *
 * `MemoryCatalogStore` is the default (this process only); the `./redis`
 * entry's `RedisCatalogStore` shares it through Redis or Redis Cluster.
 */
import { DEFINITION_LISTS, type DefinitionChange, type DefinitionList } from './event-bus.js'

/** What is recorded: a definition's last remove, disable or enable, or a named change applied. */
export type CatalogChange =
  | { kind: 'definition', list: DefinitionList, name: string, change: DefinitionChange }
  | { kind: 'named', name: string }

/** A change with its place in the order of every change recorded. */
export type RecordedChange = CatalogChange & { seq: number }

/** Most subjects kept (definitions and named changes); past it a record is refused, never an old one dropped. */
export const MAX_CATALOG_RECORDS = 10_000

/** The subject a record replaces: a later change of the same definition, or the same named change applied again. */
export function subjectOf (change: CatalogChange): string {
  return change.kind === 'definition' ? 'definition\u0000' + change.list + '\u0000' + change.name : 'named\u0000' + change.name
}

export interface CatalogStore {
  /** Records `change` (replacing the record of the same subject); resolves with its sequence number. */
  record (change: CatalogChange): Promise<number>
  /** Every record, in sequence order. */
  read (): Promise<RecordedChange[]>
  /** Releases what the store holds. */
  close (): Promise<void>
}

/** One process: the records live as long as the endpoint. */
export class MemoryCatalogStore implements CatalogStore {
  readonly #records = new Map<string, RecordedChange>()
  #seq = 0

  async record (change: CatalogChange): Promise<number> {
    const subject = subjectOf(change)
    if (!this.#records.has(subject) && this.#records.size >= MAX_CATALOG_RECORDS) throw new Error(`the catalogue store holds ${MAX_CATALOG_RECORDS} records already`)
    const seq = ++this.#seq
    // Deleted first, so the map's order stays the sequence order.
    this.#records.delete(subject)
    this.#records.set(subject, { ...change, seq })
    return seq
  }

  async read (): Promise<RecordedChange[]> {
    return [...this.#records.values()]
  }

  async close (): Promise<void> {}
}

/** Whether `value` is a well-formed recorded change (records read from a shared medium are checked before use). */
export function isRecordedChange (value: unknown): value is RecordedChange {
  if (value === null || typeof value !== 'object') return false
  const r = value as Record<string, unknown>
  if (typeof r.seq !== 'number' || !Number.isSafeInteger(r.seq) || typeof r.name !== 'string') return false
  if (r.kind === 'named') return true
  return r.kind === 'definition' && DEFINITION_LISTS.has(r.list) &&
    (r.change === 'remove' || r.change === 'disable' || r.change === 'enable')
}
