/**
 * A workaround for a V8 behaviour that slows every request of a Node process
 * (seen on Node 20 and 22): `process.nextTick` builds its queue entries with
 * an object literal whose first keys are computed symbols, and V8 keeps the
 * feedback of such a key monomorphic only while the hidden class it first saw
 * lives. A full garbage collection at a moment when no queue entry is alive
 * (typically while modules load, before any traffic) frees those hidden
 * classes; the next entry gets new ones, the feedback turns megamorphic for
 * good, and every `nextTick` after that takes the runtime's slow path. HTTP
 * handling calls `nextTick` several times per request: ~15% more CPU per
 * request on every route (measured with `bench/`; `npm run bench:next-tick`
 * shows it without Fastify).
 *
 * Keeping one real queue entry alive keeps its hidden classes alive. The
 * entry is the resource of a `nextTick` callback: queued, then kept, so it is
 * never unreferenced. It holds nothing but that callback.
 */
import { executionAsyncResource } from 'node:async_hooks'

let kept: object | undefined
let requested = false

export function keepTickShapesAlive (): void {
  if (requested) return
  requested = true
  process.nextTick(keep)
}

function keep (): void {
  kept = executionAsyncResource()
}

/** The entry being kept (once the first tick has run), for tests. */
export function keptTickEntry (): object | undefined {
  return kept
}
