/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, ext-apps
 * specification 2026-01-26): its identifier, the one MIME type of an app's
 * HTML, and what a client declares to say it can render apps. A client
 * supports apps when `capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`
 * names `text/html;profile=mcp-app`; anything else (absent, malformed, other
 * MIME types only) reads as "no".
 */
import type { JsonObject } from '../protocol/jsonrpc.js'

export const UI_EXTENSION = 'io.modelcontextprotocol/ui'
export const UI_MIME_TYPE = 'text/html;profile=mcp-app'
export const UI_SCHEME = 'ui:'
/** The flat `_meta` key older hosts read (deprecated by the specification, still written for them). */
export const UI_RESOURCE_URI_META = 'ui/resourceUri'

/** Who may call a tool: the model (the agent's tool list) and/or the app (through the host). */
export type AppVisibility = 'model' | 'app'
export const APP_VISIBILITIES: readonly AppVisibility[] = Object.freeze(['model', 'app'])

/** The extension settings a client declares (and `requiredCapabilities` names when it is missing). */
export const UI_CLIENT_EXTENSION: Readonly<JsonObject> = Object.freeze({ mimeTypes: Object.freeze([UI_MIME_TYPE]) as unknown as string[] })

function isObject (value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Whether `clientCapabilities` declare the extension with the app MIME type. */
export function clientSupportsUi (clientCapabilities: unknown): boolean {
  if (!isObject(clientCapabilities)) return false
  const extensions = clientCapabilities.extensions
  if (!isObject(extensions)) return false
  const ui = extensions[UI_EXTENSION]
  if (!isObject(ui)) return false
  const mimeTypes = ui.mimeTypes
  return Array.isArray(mimeTypes) && mimeTypes.includes(UI_MIME_TYPE)
}
