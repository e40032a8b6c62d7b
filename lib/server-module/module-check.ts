/**
 * Mistakes in a server module, caught at registration instead of showing up
 * as a capability that silently is not there:
 * - a value that is not a function under a handler name fails;
 * - a call/get/read handler without the list handler that announces it fails
 *   (the reverse, a list without its call handler, fails in build.ts);
 * - a method one or two edits away from a handler name (`listTool`,
 *   `complete` written `completion`) and a module with no handler at all are
 *   returned as warnings for the plugin to log.
 */
import { FST_MCP_INVALID_SERVER, FST_MCP_MISSING_HANDLER } from '../errors.js'
import { type CapabilityName, type HandlerName, hasHandler } from '../protocol/methods.js'

export const HANDLER_NAMES: readonly HandlerName[] = Object.freeze([
  'listTools', 'callTool', 'listResources', 'readResource', 'listResourceTemplates',
  'listPrompts', 'getPrompt', 'complete', 'subscribeResource', 'unsubscribeResource', 'setLogLevel'
])

/** Handlers that only make sense beside the list handler that announces what they serve. */
const ANNOUNCED_BY: ReadonlyArray<[HandlerName, HandlerName, CapabilityName]> = [
  ['callTool', 'listTools', 'tools'],
  ['getPrompt', 'listPrompts', 'prompts'],
  ['readResource', 'listResources', 'resources'],
  ['listResourceTemplates', 'listResources', 'resources']
]

/** Names people reach for that are more than two edits from the handler they mean. */
const ALIASES: Readonly<Record<string, HandlerName>> = {
  completion: 'complete',
  completions: 'complete',
  autocomplete: 'complete',
  setLevel: 'setLogLevel',
  setLoggingLevel: 'setLogLevel',
  listResourceTemplate: 'listResourceTemplates',
  listTemplates: 'listResourceTemplates',
  subscribe: 'subscribeResource',
  unsubscribe: 'unsubscribeResource'
}

/** Not handlers and not mistakes: what any object or module may carry. */
const IGNORED: ReadonlySet<string> = new Set(['constructor', 'capabilities'])

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits), case-insensitive, capped. */
function editDistance (a: string, b: string, cap: number): number {
  a = a.toLowerCase()
  b = b.toLowerCase()
  if (Math.abs(a.length - b.length) > cap) return cap + 1
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((rows[i - 1] as number[])[j] as number + 1, row[j - 1] as number + 1, (rows[i - 1] as number[])[j - 1] as number + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2] as number[])[j - 2] as number + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return (rows[a.length] as number[])[b.length] as number
}

/** Every property name of `server` and its prototypes (class methods included), up to Object.prototype. */
function propertyNames (server: object): Set<string> {
  const names = new Set<string>()
  for (let o: object | null = server; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) names.add(name)
  }
  return names
}

/** The handler `name` was probably meant to be, if any. */
export function probableHandler (name: string): HandlerName | undefined {
  if (Object.hasOwn(ALIASES, name)) return ALIASES[name]
  let best: HandlerName | undefined
  let bestDistance = 3
  for (const handler of HANDLER_NAMES) {
    const distance = editDistance(name, handler, 2)
    if (distance < bestDistance) {
      best = handler
      bestDistance = distance
    }
  }
  return best
}

/**
 * Throws a coded error for a module the endpoint cannot serve as written;
 * returns warnings (one line each) for what is probably a mistake.
 */
export function checkServerModule (server: object): string[] {
  const module = server as Record<string, unknown>
  for (const name of HANDLER_NAMES) {
    const value = module[name]
    if (value !== undefined && typeof value !== 'function') {
      throw new FST_MCP_INVALID_SERVER(`"${name}" is not a function (got ${value === null ? 'null' : typeof value})`)
    }
  }
  // A declaration decides what is advertised (and may switch a capability off on purpose).
  if (module.capabilities === undefined) {
    for (const [handler, list, capability] of ANNOUNCED_BY) {
      if (hasHandler(server, handler) && !hasHandler(server, list)) throw new FST_MCP_MISSING_HANDLER(capability, list)
    }
  }
  const warnings: string[] = []
  const handlers = new Set<string>(HANDLER_NAMES)
  for (const name of propertyNames(server)) {
    if (handlers.has(name) || IGNORED.has(name)) continue
    const meant = probableHandler(name)
    if (meant !== undefined && !hasHandler(server, meant)) {
      warnings.push(`server module: "${name}" is not a handler name; did you mean "${meant}"? (it is never called)`)
    }
  }
  if (!HANDLER_NAMES.some((name) => hasHandler(server, name))) {
    warnings.push(`server module has no handler (${HANDLER_NAMES.join(', ')}): the endpoint advertises no tools, resources or prompts`)
  }
  return warnings
}
