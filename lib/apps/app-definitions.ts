/**
 * MCP Apps as definitions: `appTool` and `appResource` turn an app's tool and
 * its `ui://` resource into ordinary tool and resource definitions (checked
 * here, at definition time), so they go into `defineTools` / `defineResources`
 * and compose, list and change like any other definition.
 * `defineAppResources` is `defineResources` over `appResource`, and marks the
 * module as offering the extension (the endpoint advertises it).
 *
 * - `appTool({ ui: { resourceUri, visibility }, ...tool })`: `_meta.ui` (and the
 *   flat `ui/resourceUri` older hosts read); an app-only tool
 *   (`visibility: ["app"]`) called by a modern client that did not declare the
 *   extension answers -32021 naming it (no app can have made that call).
 * - `appResource({ uri: 'ui://…', html, csp, permissions, domain, prefersBorder })`:
 *   MIME type `text/html;profile=mcp-app`, `_meta.ui` on the listed resource
 *   and on the content read; the HTML must be a whole HTML5 document.
 */
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Annotations, Icon, ReadResourceResult } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { OFFERED_EXTENSIONS } from '../server-module/capabilities.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { deepFreeze, isPlainObject } from '../definitions/plain.js'
import { type DefinedResources, defineResources, type ResourceDefinition } from '../definitions/resources.js'
import type { ToolDefinition } from '../definitions/tools.js'
import { isThenable } from '../common/maybe-promise.js'
import { APP_VISIBILITIES, type AppVisibility, clientSupportsUi, UI_CLIENT_EXTENSION, UI_EXTENSION, UI_MIME_TYPE, UI_RESOURCE_URI_META, UI_SCHEME } from './ui-extension.js'

/** Origins the app may reach; the host builds its Content-Security-Policy from them (nothing else is allowed). */
export interface AppCsp {
  /** fetch / XHR / WebSocket (`connect-src`). */
  connectDomains?: string[]
  /** Scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[]
  /** Nested iframes (`frame-src`; none when absent). */
  frameDomains?: string[]
  /** `<base href>` (`base-uri`; `'self'` when absent). */
  baseUriDomains?: string[]
}

/** Browser features the app asks for; a host may grant them through the iframe's `allow` attribute. */
export interface AppPermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

/** `_meta.ui` of a UI resource. */
export interface AppResourceUi {
  csp?: AppCsp
  permissions?: AppPermissions
  /** A dedicated sandbox origin, in the format the host documents. */
  domain?: string
  /** Whether the host should draw a border and background around the app. */
  prefersBorder?: boolean
}

/** `_meta.ui` of a tool. */
export interface AppToolUi {
  /** The `ui://` resource the host renders the tool's results with. */
  resourceUri: string
  /** Who may call the tool (default both): `["app"]` hides it from the model. */
  visibility?: AppVisibility[]
}

export type AppToolDefinition<I, O> = ToolDefinition<I, O> & { ui: AppToolUi }

export interface AppResourceDefinition extends AppResourceUi {
  /** A `ui://` URI, unique on the server. */
  uri: string
  title?: string
  description?: string
  icons?: Icon[]
  annotations?: Annotations
  /** Scopes a caller needs to read it, beyond the endpoint's. */
  scopes?: string[]
  /** The app: a whole HTML5 document, or a function giving one per read. */
  html: string | ((ctx: HandlerContext) => string | Promise<string>)
  /** Further `_meta` of the listed resource (`ui` is made from the fields above). */
  _meta?: JsonObject
}

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const
const RESOURCE_FIELDS = new Set(['uri', 'title', 'description', 'icons', 'annotations', 'scopes', 'html', '_meta', 'csp', 'permissions', 'domain', 'prefersBorder'])
/** `scheme://host[:port]`, the host possibly `*.`-prefixed (a wildcard subdomain) or a bracketed IPv6 address. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/
const DOCTYPE = /^\s*<!doctype html>/i

function invalid (where: string, message: string): never {
  throw new FST_MCP_INVALID_DEFINITION(where, message)
}

/** A `ui://` URI: absolute, with a host (`ui://server/app`). */
function checkUiUri (value: unknown, where: string, field: string): string {
  if (typeof value !== 'string' || !URL.canParse(value) || new URL(value).protocol !== UI_SCHEME || !value.startsWith('ui://') || value.length <= 'ui://'.length) {
    invalid(where, `"${field}" must be a ui:// URI (ui://server/app), got ${JSON.stringify(String(value)).slice(0, 80)}`)
  }
  return value
}

function checkOrigin (value: unknown, where: string, field: string): string {
  if (typeof value !== 'string' || !ORIGIN.test(value)) {
    invalid(where, `"${field}" holds ${JSON.stringify(String(value)).slice(0, 80)}, which is not an origin (scheme://host[:port], scheme http, https, ws or wss, no path; a wildcard subdomain is written https://*.example.com)`)
  }
  const port = /:(\d+)$/.exec(value)
  if (port !== null && Number(port[1]) > 65535) invalid(where, `"${field}" holds ${value}, whose port is out of range`)
  return value
}

function checkCsp (value: unknown, where: string): AppCsp | undefined {
  if (value === undefined) return undefined
  if (!isPlainObject(value)) invalid(where, '"csp" must be an object { connectDomains?, resourceDomains?, frameDomains?, baseUriDomains? }')
  const csp: Record<string, string[]> = {}
  for (const key of Object.keys(value)) {
    if (!(CSP_FIELDS as readonly string[]).includes(key)) invalid(where, `"csp.${key}" is not a CSP field (known: ${CSP_FIELDS.join(', ')})`)
    const list = value[key]
    if (!Array.isArray(list)) invalid(where, `"csp.${key}" must be an array of origins`)
    csp[key] = [...new Set(list.map((origin) => checkOrigin(origin, where, `csp.${key}`)))]
  }
  return csp
}

function checkPermissions (value: unknown, where: string): AppPermissions | undefined {
  if (value === undefined) return undefined
  if (!isPlainObject(value)) invalid(where, `"permissions" must be an object with some of ${PERMISSIONS.join(', ')}`)
  const permissions: Record<string, Record<string, never>> = {}
  for (const key of Object.keys(value)) {
    if (!(PERMISSIONS as readonly string[]).includes(key)) invalid(where, `"permissions.${key}" is not a permission (known: ${PERMISSIONS.join(', ')})`)
    const setting = value[key]
    if (!isPlainObject(setting) || Object.keys(setting).length > 0) invalid(where, `"permissions.${key}" must be {}`)
    permissions[key] = {}
  }
  return permissions
}

function checkVisibility (value: unknown, where: string): AppVisibility[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => (APP_VISIBILITIES as readonly unknown[]).includes(v)) || new Set(value).size !== value.length) {
    invalid(where, '"ui.visibility" must be a non-empty array of distinct "model" and "app"')
  }
  return [...value] as AppVisibility[]
}

/** The `_meta.ui` of a UI resource from its definition's fields. */
function resourceUi (definition: Record<string, unknown>, where: string): AppResourceUi {
  const ui: AppResourceUi = {}
  const csp = checkCsp(definition.csp, where)
  if (csp !== undefined) ui.csp = csp
  const permissions = checkPermissions(definition.permissions, where)
  if (permissions !== undefined) ui.permissions = permissions
  if (definition.domain !== undefined) {
    if (typeof definition.domain !== 'string' || definition.domain.length === 0 || /\s/.test(definition.domain)) invalid(where, '"domain" must be a non-empty string without spaces')
    ui.domain = definition.domain
  }
  if (definition.prefersBorder !== undefined) {
    if (typeof definition.prefersBorder !== 'boolean') invalid(where, '"prefersBorder" must be a boolean')
    ui.prefersBorder = definition.prefersBorder
  }
  return ui
}

function checkHtml (html: unknown, where: string): string {
  if (typeof html !== 'string') invalid(where, 'the app HTML must be a string')
  if (!DOCTYPE.test(html)) invalid(where, 'the app HTML must be a whole HTML5 document, starting with <!DOCTYPE html>')
  return html
}

function metaWith (meta: unknown, where: string, ui: JsonObject): JsonObject {
  if (meta !== undefined && !isPlainObject(meta)) invalid(where, '"_meta" must be an object')
  if (meta !== undefined && ('ui' in meta || UI_RESOURCE_URI_META in meta)) invalid(where, '"_meta" must not set "ui" itself: give the ui fields instead')
  return { ...meta, ui }
}

/**
 * A tool linked to an app: the definition for `defineTools` (or a runtime add),
 * with `_meta.ui` made from `ui`. Its handler still returns a meaningful
 * `content` (text for hosts without apps); `structuredContent` feeds the app.
 */
export function appTool<I, O> (definition: AppToolDefinition<I, O>): ToolDefinition<I, O> {
  const where = 'app tool'
  if (!isPlainObject(definition)) invalid(where, 'expected an object { ui, input?, output?, handler, ... }')
  const ui: unknown = definition.ui
  if (!isPlainObject(ui)) invalid(where, '"ui" must be an object { resourceUri, visibility? }')
  for (const key of Object.keys(ui)) {
    if (key !== 'resourceUri' && key !== 'visibility') invalid(where, `"ui.${key}" is not a tool ui field (known: resourceUri, visibility)`)
  }
  const resourceUri = checkUiUri(ui.resourceUri, where, 'ui.resourceUri')
  const visibility = checkVisibility(ui.visibility, where)
  const toolUi: JsonObject = visibility === undefined ? { resourceUri } : { resourceUri, visibility }
  const { ui: _ui, ...rest } = definition
  const meta = { ...metaWith(definition._meta, where, toolUi), [UI_RESOURCE_URI_META]: resourceUri }
  const tool = { ...rest, _meta: meta } as ToolDefinition<I, O>
  if (visibility !== undefined && !visibility.includes('model') && typeof definition.handler === 'function') {
    const handler = definition.handler
    tool.handler = function appOnly (args, ctx) {
      // Only an app calls an app-only tool, through a host that declared the extension.
      if (ctx.era === 'modern' && !clientSupportsUi(ctx.clientCapabilities)) {
        throw new McpError(ErrorCode.MissingRequiredClientCapability,
          `Missing required client capability: this tool is called by an MCP App, through a host declaring ${UI_EXTENSION}`,
          { requiredCapabilities: { extensions: { [UI_EXTENSION]: UI_CLIENT_EXTENSION } } })
      }
      return handler(args, ctx)
    }
  }
  return tool
}

/** A `ui://` resource holding an app: the definition for `defineResources` (or a runtime add). */
export function appResource (definition: AppResourceDefinition): ResourceDefinition {
  if (!isPlainObject(definition)) invalid('app resource', 'expected an object { uri, html, csp?, permissions?, domain?, prefersBorder? }')
  const uri = checkUiUri(definition.uri, 'app resource', 'uri')
  const where = `app resource ${uri}`
  for (const key of Object.keys(definition)) {
    if (!RESOURCE_FIELDS.has(key)) invalid(where, `"${key}" is not an app resource field (known: ${[...RESOURCE_FIELDS].join(', ')})`)
  }
  const ui = deepFreeze(resourceUi(definition as unknown as Record<string, unknown>, where))
  const html = definition.html
  if (typeof html !== 'function') checkHtml(html, where)
  const contentMeta = Object.keys(ui).length === 0 ? undefined : { ui }
  const contentsOf = (text: unknown): ReadResourceResult => {
    const content: JsonObject = { uri, mimeType: UI_MIME_TYPE, text: checkAnswer(text, where) }
    if (contentMeta !== undefined) content._meta = contentMeta
    return { contents: [content as { uri: string, text: string }] }
  }
  const fixed = typeof html === 'string' ? deepFreeze(contentsOf(html)) : undefined
  const { html: _html, csp: _csp, permissions: _permissions, domain: _domain, prefersBorder: _border, _meta, ...listed } = definition
  const resource: ResourceDefinition = {
    ...listed,
    uri,
    mimeType: UI_MIME_TYPE,
    read: fixed !== undefined
      ? () => fixed
      : (_uri: string, ctx: HandlerContext) => {
          const text = (html as (ctx: HandlerContext) => string | Promise<string>)(ctx)
          return isThenable(text) ? Promise.resolve(text).then(contentsOf) : contentsOf(text)
        }
  }
  const meta = contentMeta === undefined && _meta === undefined ? undefined : metaWith(_meta, where, ui as JsonObject)
  if (meta !== undefined) resource._meta = meta
  return resource
}

/** HTML a function gave: a server fault when it is not a document (logged by the endpoint, -32603 to the client). */
function checkAnswer (text: unknown, where: string): string {
  if (typeof text !== 'string' || !DOCTYPE.test(text)) throw new Error(`${where}: the html function must return a whole HTML5 document (a string starting with <!DOCTYPE html>)`)
  return text
}

/** The settings the server advertises for the extension in its capabilities. */
const OFFERED_UI: Readonly<Record<string, JsonObject>> = Object.freeze({ [UI_EXTENSION]: Object.freeze({}) as JsonObject })

/** `defineResources`' handlers; the extension marker rides along under a symbol key (OFFERED_EXTENSIONS). */
export type DefinedAppResources = DefinedResources

/**
 * UI resources by name, as `defineResources` takes resources; spread into the
 * server module, it also makes the endpoint advertise `io.modelcontextprotocol/ui`
 * and answer clients that did not declare it without UI metadata.
 */
export function defineAppResources (resources: Record<string, AppResourceDefinition>): DefinedAppResources {
  if (!isPlainObject(resources)) invalid('app resources', 'expected an object of app resource definitions by name')
  const definitions: Record<string, ResourceDefinition> = {}
  for (const name of Object.keys(resources)) definitions[name] = appResource(resources[name] as AppResourceDefinition)
  const defined = defineResources(definitions)
  return Object.defineProperty(defined, OFFERED_EXTENSIONS, { value: OFFERED_UI, enumerable: true })
}
