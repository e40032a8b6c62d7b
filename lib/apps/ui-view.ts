/**
 * What a client that cannot render apps is shown (ext-apps "graceful
 * degradation"): its `tools/list` has no `_meta.ui` (nor the flat
 * `ui/resourceUri`) and no app-only tools (no app of its will ever call them,
 * and it would not know to keep them from the model); its `resources/list`
 * and `resources/templates/list` leave out `ui://` entries (the specification
 * lets servers omit UI-only resources). A `ui://` resource is still read on
 * request, and every tool answers with its text `content` as always.
 *
 * Who cannot render apps: a modern request whose `clientCapabilities` lack the
 * extension. A stateless legacy endpoint sees the client's declaration only in
 * `initialize`, never on the later `tools/list`, so legacy lists carry the UI
 * metadata (clients that do not know it ignore `_meta`).
 *
 * Served lists are frozen and reused; the view of one is made once and
 * frozen too (a WeakMap per list), so it is served as prepared bytes as well.
 */
import type { FastifyRequest } from 'fastify'
import type { ListFilter } from '../handler/invoke.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { META_CLIENT_CAPABILITIES } from '../protocol/meta.js'
import { LIST_METHODS, type ListMeta } from '../protocol/methods.js'
import { offeredExtensions } from '../server-module/capabilities.js'
import { clientSupportsUi, UI_EXTENSION, UI_RESOURCE_URI_META } from './ui-extension.js'

/** The lists a client without the extension sees a view of (the method table's `list.uiView`). */
const VIEWED: ReadonlyMap<string, ListMeta> = new Map(LIST_METHODS.filter(([, meta]) => meta.uiView !== undefined))
const views = new WeakMap<object, JsonObject>()

function isObject (value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function isUiUri (value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('ui://')
}

/** `tool` without its UI metadata, or undefined for an app-only tool. */
function plainTool (tool: unknown): unknown {
  if (!isObject(tool) || !isObject(tool._meta)) return tool
  const meta = tool._meta
  const ui = meta.ui
  if (isObject(ui) && Array.isArray(ui.visibility) && !ui.visibility.includes('model')) return undefined
  if (ui === undefined && !(UI_RESOURCE_URI_META in meta)) return tool
  const { ui: _ui, [UI_RESOURCE_URI_META]: _flat, ...rest } = meta
  const { _meta: _old, ...plain } = tool
  return Object.keys(rest).length === 0 ? plain : { ...plain, _meta: rest }
}

function view (list: ListMeta, result: JsonObject): JsonObject {
  const field = list.items
  const items = result[field]
  const by = list.uiView
  if (!Array.isArray(items) || by === undefined) return result
  const kept = by === 'tool'
    ? items.map(plainTool).filter((tool) => tool !== undefined)
    : items.filter((item) => !(isObject(item) && isUiUri(item[by])))
  return { ...result, [field]: kept }
}

/** The view of `result` for a client without apps: made once per frozen list. */
export function listWithoutUi (method: string, result: JsonObject): JsonObject {
  const list = VIEWED.get(method)
  if (list === undefined) return result
  if (!Object.isFrozen(result)) return view(list, result)
  let seen = views.get(result)
  if (seen === undefined) {
    seen = Object.freeze(view(list, result))
    for (const value of Object.values(seen)) if (Array.isArray(value)) Object.freeze(value)
    views.set(result, seen)
  }
  return seen
}

/** Whether a modern request's client declared the extension. */
function modernClientSupportsUi (request: FastifyRequest): boolean {
  const params = (request.body as { params?: unknown } | undefined)?.params
  const meta = isObject(params) ? params._meta : undefined
  return isObject(meta) && clientSupportsUi(meta[META_CLIENT_CAPABILITIES])
}

/**
 * The endpoint's list step: `before` (authorization's, when lists are
 * filtered), then, when the module offers apps, the view for clients that
 * cannot render them; undefined when neither applies.
 */
export function withUiView (server: object, before: ListFilter | undefined): ListFilter | undefined {
  if (offeredExtensions(server)[UI_EXTENSION] === undefined) return before
  const view: ListFilter = (method, outcome, request, modern) =>
    modern && outcome.ok && VIEWED.has(method) && !modernClientSupportsUi(request)
      ? { ok: true, result: listWithoutUi(method, outcome.result as JsonObject) }
      : outcome
  if (before === undefined) return view
  return (method, outcome, request, modern) => view(method, before(method, outcome, request, modern), request, modern)
}
