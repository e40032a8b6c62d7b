/**
 * `remove`, `disable` and `enable` across instances: the change goes on the
 * event bus with an id; every other instance applies it and answers
 * `definitionApplied` with that id; the instance that made it resolves once
 * every instance the bus reached has answered. The bus says how many it
 * reached when it can (Redis: the answer to PUBLISH); a bus that does not
 * say (in memory, one process) resolves once it has taken the change.
 * Instances that stay silent past the bound make the call reject, saying so.
 */
import { randomUUID } from 'node:crypto'
import type { DefinitionChange, DefinitionList, EventBus, McpEvent } from '../parts/event-bus.js'

/** How long the instance that made a change waits for the others to confirm it. */
export const CONFIRM_TIMEOUT_MS = 5000

interface Waiting {
  /** Confirmations expected (undefined until the bus said how many it reached). */
  needed: number | undefined
  got: number
  settle: (err?: Error) => void
}

export class ConfirmedChanges {
  readonly #bus: EventBus
  readonly #timeoutMs: number
  readonly #waiting = new Map<string, Waiting>()

  constructor (bus: EventBus, timeoutMs = CONFIRM_TIMEOUT_MS) {
    this.#bus = bus
    this.#timeoutMs = timeoutMs
  }

  /** Publishes the change; resolves once every other instance reached has applied it. */
  share (list: DefinitionList, name: string, change: DefinitionChange): Promise<void> {
    const id = randomUUID()
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const waiting: Waiting = {
        needed: undefined,
        got: 0,
        settle: (err) => {
          if (!this.#waiting.delete(id)) return
          clearTimeout(timer)
          if (err === undefined) resolve()
          else reject(err)
        }
      }
      // Registered before publishing: a bus that delivers here at once must see it as this instance's own.
      this.#waiting.set(id, waiting)
      this.#bus.publish({ type: 'definitionChanged', list, name, change, id }).then((reached) => {
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

  /** A change heard from another instance and applied here: confirm it. */
  confirm (id: string): void {
    this.#bus.publish({ type: 'definitionApplied', id }).catch(() => {
      // The maker times out and says so; nothing more to do here.
    })
  }

  /** A confirmation heard on the bus. */
  confirmed (event: Extract<McpEvent, { type: 'definitionApplied' }>): void {
    const waiting = this.#waiting.get(event.id)
    if (waiting === undefined) return
    waiting.got++
    if (waiting.needed !== undefined && waiting.got >= waiting.needed) waiting.settle()
  }

  /** Stops waiting (the app closes): pending calls reject. */
  close (): void {
    for (const waiting of [...this.#waiting.values()]) waiting.settle(new Error('the endpoint closed before every instance confirmed the change'))
  }
}
