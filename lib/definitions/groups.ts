/**
 * What `defineTools`, `definePrompts` and `defineResources` return carries its
 * definitions under a symbol key of its own, made for that call. Spreading
 * several results into one module keeps every key, so
 * `{ ...defineTools({ a }), ...defineTools({ b }) }` keeps both groups, and the
 * endpoint collects them all into one catalogue per kind (compose.ts).
 * Only groups made here are recognised (a WeakSet), so a symbol-keyed object
 * from elsewhere is never taken for one.
 */
import type { CatalogEntry } from './catalog.js'

export type DefinitionKind = 'tools' | 'prompts' | 'resources' | 'skills'

export interface DefinitionGroup<E extends CatalogEntry = CatalogEntry> {
  readonly kind: DefinitionKind
  readonly entries: readonly E[]
  /** Where the define call was made (`defineTools at src/tools/math.ts:12`). */
  readonly origin: string
}

const GROUPS = new WeakSet<object>()
/** Handlers a group carries for direct use (tests), each with its group; the endpoint serves its own composed ones instead. */
const GROUP_HANDLERS = new WeakMap<object, DefinitionGroup>()

/** Puts `group` on `target` under a fresh symbol key; marks `target`'s handlers as the group's. */
export function attachGroup<T extends object> (target: T, group: DefinitionGroup): T {
  GROUPS.add(group)
  Object.defineProperty(target, Symbol(`fastify-mcp-capabilities.${group.kind}`), { value: Object.freeze(group), enumerable: true })
  for (const value of Object.values(Object.getOwnPropertyDescriptors(target))) {
    if (typeof value.value === 'function') GROUP_HANDLERS.set(value.value, group)
  }
  return target
}

/** Every group on `module`, in the order of its keys. */
export function groupsOf (module: object): DefinitionGroup[] {
  const out: DefinitionGroup[] = []
  for (const key of Object.getOwnPropertySymbols(module)) {
    const value = (module as Record<symbol, unknown>)[key]
    if (value !== null && typeof value === 'object' && GROUPS.has(value)) out.push(value as DefinitionGroup)
  }
  return out
}

/** The group `value` is a handler of, or undefined for anything else. */
export function groupOfHandler (value: unknown): DefinitionGroup | undefined {
  return typeof value === 'function' ? GROUP_HANDLERS.get(value) : undefined
}

/**
 * `<what> at <file>:<line>` for the code that called `fn`, or just `what`
 * when the stack says nothing useful. One short stack capture per call.
 */
export function callerOrigin (what: string, fn: Function): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 1
  const holder: { stack?: string } = {}
  Error.captureStackTrace(holder, fn)
  Error.stackTraceLimit = limit
  const line = holder.stack?.split('\n')[1]
  const match = line === undefined ? null : /\(?((?:file:\/\/)?[^\s()]+:\d+):\d+\)?\s*$/.exec(line)
  if (match === null) return what
  let place = (match[1] as string).replace(/^file:\/\//, '')
  const cwd = process.cwd() + '/'
  if (place.startsWith(cwd)) place = place.slice(cwd.length)
  return `${what} at ${place}`
}
