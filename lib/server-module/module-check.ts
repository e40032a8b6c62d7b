/**
 * Mistakes in a server module, caught at registration instead of showing up
 * as a capability that silently is not there. Each fails with a coded error:
 * - a value that is not a function under a handler name;
 * - a call/get/read handler without the list handler that announces it
 *   (the reverse, a list without its call handler, fails in capabilities.ts);
 * - a method one or two edits away from a missing handler's name
 *   (`listTool`, or `completion` for `complete`): the endpoint would serve
 *   less than the module says; the error names the handler it probably meant
 *   (a helper whose name is that close can start with `_`, which is never checked);
 * - a module with no handler at all (and no capabilities declaration).
 * Harmless oddities (an `unsubscribeResource` that can never be called
 * without `subscribeResource`) are returned as warnings for the plugin to log.
 */
import { FST_MCP_INVALID_SERVER, FST_MCP_MISSING_HANDLER } from '../errors.js'
import { type CapabilityName, HANDLER_NAMES, type HandlerName, hasHandler } from '../protocol/methods.js'
import { closestName } from '../common/closest-name.js'

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
  return closestName(name, HANDLER_NAMES)
}

/**
 * ` ("listTool" is not a handler name; did you mean "listTools"?)` when the
 * module has a near miss of the missing `handler`, else ''. For error messages.
 */
export function nearMissHint (server: object, handler: HandlerName): string {
  for (const name of propertyNames(server)) {
    if (isCheckedName(name) && probableHandler(name) === handler) return ` ("${name}" is not a handler name; did you mean "${handler}"?)`
  }
  return ''
}

/** Names that are neither handlers nor exempt: candidates for a near miss. */
function isCheckedName (name: string): boolean {
  return !HANDLER_SET.has(name) && !IGNORED.has(name) && !name.startsWith('_')
}

const HANDLER_SET: ReadonlySet<string> = new Set(HANDLER_NAMES)

/**
 * Throws a coded error for a module the endpoint cannot serve as written;
 * returns warnings (one line each) for what is odd but harmless.
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
      if (hasHandler(server, handler) && !hasHandler(server, list)) throw new FST_MCP_MISSING_HANDLER(capability, list, nearMissHint(server, list))
    }
  }
  for (const name of propertyNames(server)) {
    if (!isCheckedName(name)) continue
    const meant = probableHandler(name)
    if (meant !== undefined && !hasHandler(server, meant)) {
      throw new FST_MCP_INVALID_SERVER(`"${name}" is not a handler name; did you mean "${meant}"? (as written it is never called; a helper may start its name with "_")`)
    }
  }
  // A declaration without handlers fails in capabilities.ts, naming what it lacks.
  if (module.capabilities === undefined && !HANDLER_NAMES.some((name) => hasHandler(server, name))) {
    throw new FST_MCP_INVALID_SERVER(`it has no handler (${HANDLER_NAMES.join(', ')}): the endpoint would serve nothing`)
  }
  const warnings: string[] = []
  if (hasHandler(server, 'unsubscribeResource') && !hasHandler(server, 'subscribeResource')) {
    warnings.push('server module: "unsubscribeResource" without "subscribeResource" is never called (resources/unsubscribe needs the subscribe capability)')
  }
  return warnings
}
