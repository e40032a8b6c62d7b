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
 * request on every route (measured with `bench/`; reproduced without Fastify
 * by calling `nextTick`, letting the queue drain, then forcing a full GC).
 *
 * Keeping one real queue entry alive keeps its hidden classes alive. The
 * entry is captured once per process, through an `init` hook enabled only for
 * the one `nextTick` call, and holds nothing but an empty function.
 */
import { createHook } from 'node:async_hooks'

let kept: object | undefined

export function keepTickShapesAlive (): void {
  if (kept !== undefined) return
  const hook = createHook({
    init (_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept === undefined) kept = resource
    }
  })
  hook.enable()
  try {
    process.nextTick(noop)
  } finally {
    hook.disable()
  }
}

function noop (): void {}

/** The entry being kept, for tests. */
export function keptTickEntry (): object | undefined {
  return kept
}
