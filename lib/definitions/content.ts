/**
 * Content blocks for tool results and prompt messages: image, audio,
 * resource links and embedded resources, from bytes or base64, with the
 * MIME type and base64 checked here (a malformed block would otherwise reach
 * the client, which may drop the whole result). A bad argument throws a
 * `TypeError` naming what is wrong; thrown inside a tool it becomes a tool
 * execution error like any other.
 */
import type { Annotations, AudioContent, EmbeddedResource, Icon, ImageContent, JsonObject, ResourceLink, TextContent } from '../protocol/schemas.js'

/** Optional fields every content block may carry. */
export interface ContentExtras {
  annotations?: Annotations
  _meta?: JsonObject
}

/** Binary data: bytes (Buffer, Uint8Array) or a base64 string. */
export type BinaryData = Uint8Array | string

// RFC 6838 names (`type/subtype`), optionally followed by parameters (`; charset=utf-8`).
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[A-Za-z0-9!#$&^_.+-]+))*$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

function checkMimeType (what: string, mimeType: unknown, family?: 'image' | 'audio'): string {
  if (typeof mimeType !== 'string' || !MIME_TYPE.test(mimeType)) {
    throw new TypeError(`${what}: mimeType must be a MIME type such as ${family === undefined ? '"text/plain"' : `"${family}/${family === 'image' ? 'png' : 'wav'}"`} (got ${JSON.stringify(mimeType)})`)
  }
  if (family !== undefined && mimeType.slice(0, mimeType.indexOf('/')).toLowerCase() !== family) {
    throw new TypeError(`${what}: mimeType must be an ${family}/* type (got "${mimeType}")`)
  }
  return mimeType
}

/** Base64 of `data`: bytes are encoded; a string must already be (standard, padded) base64. */
function base64Of (what: string, data: unknown): string {
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
  if (typeof data === 'string') {
    if (!BASE64.test(data)) throw new TypeError(`${what}: data must be bytes or a base64 string (standard alphabet, padded)`)
    return data
  }
  throw new TypeError(`${what}: data must be bytes (Uint8Array, Buffer) or a base64 string`)
}

function checkUri (what: string, uri: unknown): string {
  if (typeof uri !== 'string' || !URL.canParse(uri)) throw new TypeError(`${what}: uri must be an absolute URI (got ${JSON.stringify(uri)})`)
  return uri
}

function withExtras<T extends object> (block: T, extras: ContentExtras | undefined): T {
  if (extras?.annotations !== undefined) (block as ContentExtras).annotations = extras.annotations
  if (extras?._meta !== undefined) (block as ContentExtras)._meta = extras._meta
  return block
}

/** A text block. */
export function textContent (text: string, extras?: ContentExtras): TextContent {
  if (typeof text !== 'string') throw new TypeError('textContent: text must be a string')
  return withExtras({ type: 'text', text }, extras)
}

/** An image block: `imageContent(pngBytes, 'image/png')`. */
export function imageContent (data: BinaryData, mimeType: string, extras?: ContentExtras): ImageContent {
  const type = checkMimeType('imageContent', mimeType, 'image')
  return withExtras({ type: 'image', data: base64Of('imageContent', data), mimeType: type }, extras)
}

/** An audio block: `audioContent(wavBytes, 'audio/wav')`. */
export function audioContent (data: BinaryData, mimeType: string, extras?: ContentExtras): AudioContent {
  const type = checkMimeType('audioContent', mimeType, 'audio')
  return withExtras({ type: 'audio', data: base64Of('audioContent', data), mimeType: type }, extras)
}

/** What a resource link says about the resource (the fields of a listed `Resource`). */
export interface ResourceLinkFields extends ContentExtras {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  icons?: Icon[]
}

/** A link to a resource the client may read (`resources/read`) or subscribe to. */
export function resourceLink (fields: ResourceLinkFields): ResourceLink {
  if (fields === null || typeof fields !== 'object') throw new TypeError('resourceLink: expected { uri, name, ... }')
  const link: ResourceLink = { type: 'resource_link', uri: checkUri('resourceLink', fields.uri), name: fields.name }
  if (typeof fields.name !== 'string' || fields.name.length === 0) throw new TypeError('resourceLink: name must be a non-empty string')
  for (const key of ['title', 'description'] as const) {
    const value = fields[key]
    if (value !== undefined) {
      if (typeof value !== 'string') throw new TypeError(`resourceLink: ${key} must be a string`)
      link[key] = value
    }
  }
  if (fields.mimeType !== undefined) link.mimeType = checkMimeType('resourceLink', fields.mimeType)
  if (fields.size !== undefined) {
    if (!Number.isSafeInteger(fields.size) || fields.size < 0) throw new TypeError('resourceLink: size must be a whole number of bytes')
    link.size = fields.size
  }
  if (fields.icons !== undefined) link.icons = fields.icons
  return withExtras(link, fields)
}

/** An embedded resource's contents: text, or binary data (bytes or base64). */
export type EmbeddedContents = { text: string } | { blob: BinaryData }

/**
 * A resource carried in the result itself: `embeddedResource('notes://1', { text: '...' }, 'text/markdown')`
 * or `embeddedResource('files://logo', { blob: pngBytes }, 'image/png')`.
 */
export function embeddedResource (uri: string, contents: EmbeddedContents, mimeType?: string, extras?: ContentExtras): EmbeddedResource {
  const what = 'embeddedResource'
  const resource: Record<string, unknown> = { uri: checkUri(what, uri) }
  if (mimeType !== undefined) resource.mimeType = checkMimeType(what, mimeType)
  if (contents !== null && typeof contents === 'object' && 'text' in contents && typeof contents.text === 'string') {
    resource.text = contents.text
  } else if (contents !== null && typeof contents === 'object' && 'blob' in contents) {
    resource.blob = base64Of(what, contents.blob)
  } else {
    throw new TypeError(`${what}: contents must be { text: string } or { blob: bytes or base64 }`)
  }
  return withExtras({ type: 'resource', resource: resource as EmbeddedResource['resource'] }, extras)
}
