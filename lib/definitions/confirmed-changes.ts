/**
 * `remove`, `disable`, `enable` and named changes across instances: the
 * change goes on the event bus with an id; every other instance applies it
 * and answers `definitionApplied` with that id (and, when it could not, why);
 * the instance that made it resolves once every instance the bus reached has
 * answered, and rejects naming the reasons when any could not apply it. The bus says how many it
 * reached when it can (Redis: the answer to PUBLISH); a bus that does not
 * say (in memory, one process) resolves once it has taken the change.
 * Instances that stay silent past the bound make the call reject, saying so.
 *
 * However it settles (confirmed, failed, timed out, closed), the maker then
 * publishes `changeSettled` with the id: the other instances tell their
 * listen streams what the change told, held until then
 * (settled-notices.ts), so a client told re-lists from an instance that
 * applied it. On a bus no other instance shares (the endpoint's own, in
 * memory) nothing is held, so nothing is said.
 */
import { randomUUID } from 'node:crypto'
import type { EventBus, McpEvent } from '../parts/event-bus.js'

/** How long the instance that made a change waits for the others to confirm it. */
export const CONFIRM_TIMEOUT_MS = 5000

interface Waiting {
  /** Confirmations expected (undefined until the bus said how many it reached). */
  needed: number | undefined
  got: number
  /** Why instances could not apply it. */
  failures: string[]
  settle: (err?: Error) => void
}

export class ConfirmedChanges {
  readonly #bus: EventBus
  readonly #timeoutMs: number
  readonly #shared: boolean
  readonly #waiting = new Map<string, Waiting>()

  /** `shared`: whether other instances may share the bus (false: no `changeSettled`, nobody holds on it). */
  constructor (bus: EventBus, timeoutMs = CONFIRM_TIMEOUT_MS, shared = true) {
    this.#bus = bus
    this.#timeoutMs = timeoutMs
    this.#shared = shared
  }

  /** Publishes the change `make(id)` builds; resolves once every other instance reached has applied it. */
  share (make: (id: string) => McpEvent): Promise<void> {
    const id = randomUUID()
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const waiting: Waiting = {
        needed: undefined,
        got: 0,
        failures: [],
        settle: (err) => {
          if (!this.#waiting.delete(id)) return
          clearTimeout(timer)
          this.#settled(id)
          const failed = err ?? (waiting.failures.length === 0
            ? undefined
            : new Error(`${waiting.failures.length} instance(s) could not apply it: ${waiting.failures.join('; ')}`))
          if (failed === undefined) resolve()
          else reject(failed)
        }
      }
      // Registered before publishing: a bus that delivers here at once must see it as this instance's own.
      this.#waiting.set(id, waiting)
      this.#bus.publish(make(id)).then((reached) => {
        if (typeof reached !== 'number') {
          waiting.settle()
          return
        }
        waiting.needed = Math.max(0, reached - 1)
        if (waiting.got >= waiting.needed) {
          waiting.settle()
          return
        }
        timer = setTimeout(() => {
          waiting.settle(new Error(`${waiting.got} of the ${waiting.needed as number} other instances confirmed it within ${this.#timeoutMs} ms`))
        }, this.#timeoutMs)
        timer.unref()
      }, (err: unknown) => waiting.settle(err instanceof Error ? err : new Error(String(err))))
    })
  }

  /** Whether `id` is a change this instance made and still waits for. */
  isOwn (id: string): boolean {
    return this.#waiting.has(id)
  }

  /** A change heard from another instance and applied here (or not, and `error` says why): confirm it. */
  confirm (id: string, error?: string): void {
    this.#bus.publish(error === undefined ? { type: 'definitionApplied', id } : { type: 'definitionApplied', id, error: error.slice(0, 1000) }).catch(() => {
      // The maker times out and says so; nothing more to do here.
    })
  }

  /** A confirmation heard on the bus. */
  confirmed (event: Extract<McpEvent, { type: 'definitionApplied' }>): void {
    const waiting = this.#waiting.get(event.id)
    if (waiting === undefined) return
    waiting.got++
    if (event.error !== undefined) waiting.failures.push(event.error)
    if (waiting.needed !== undefined && waiting.got >= waiting.needed) waiting.settle()
  }

  /** Says on the bus that the change of `id` settled here; an instance that does not hear it tells its streams after a bound. */
  #settled (id: string): void {
    if (!this.#shared) return
    try {
      this.#bus.publish({ type: 'changeSettled', id }).catch(() => {})
    } catch {
      // A bus that throws instead of rejecting: the bound covers it.
    }
  }

  /** Stops waiting (the app closes): pending calls reject. */
  close (): void {
    for (const waiting of [...this.#waiting.values()]) waiting.settle(new Error('the endpoint closed before every instance confirmed the change'))
  }
}
