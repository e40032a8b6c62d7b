/**
 * Sealed `requestState` for multi round-trip requests (2026-07-28). The
 * state travels through the client, so it must come back unaltered (the
 * spec's "MUST reject state that fails verification"), only to the caller it
 * was issued to, and unreadable on the way: it carries the answers given in
 * earlier rounds, which are the caller's private data (issue 11).
 *
 * Token: the JSON payload sealed (lib/common/sealed-text.ts: AES-256-GCM
 * under keys derived from the configured secrets, the first sealing, every
 * one opening); the additional authenticated data names this codec and the
 * caller the state is bound to, so a state replayed by another caller fails
 * like a forged one.
 */
import { createHash } from 'node:crypto'
import { SealedText } from '../common/sealed-text.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'

/** Separates these keys and tags from anything else the same secret might protect. */
const DOMAIN = 'fastify-mcp-capabilities/request-state/v2'

function additionalData (binding: string): string {
  return DOMAIN + '\n' + binding
}

export class RequestStateCodec {
  readonly #sealed: SealedText

  constructor (secrets: readonly Buffer[]) {
    this.#sealed = new SealedText(secrets, DOMAIN)
  }

  /** Encrypts `payload` for the caller named by `binding` (any string; '' binds to nobody in particular). */
  seal (payload: JsonObject, binding = ''): string {
    return this.#sealed.seal(JSON.stringify(payload), additionalData(binding))
  }

  /** The payload of a token this endpoint sealed for `binding`, or undefined for anything else. */
  open (token: string, binding = ''): JsonObject | undefined {
    // no bound of its own: the request's body limit bounds the token
    const text = this.#sealed.open(token, additionalData(binding), Infinity)
    if (text === undefined) return undefined
    try {
      const payload: unknown = JSON.parse(text)
      return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload as JsonObject : undefined
    } catch {
      return undefined
    }
  }
}

/** Deepest nesting a digested value may have: far beyond any real params, well within the stack. */
export const MAX_DIGEST_DEPTH = 256

/**
 * JSON with object keys sorted at every level, so equal values give equal
 * text. A value nested deeper than `MAX_DIGEST_DEPTH` is the client's fault
 * (its params): -32602, not a stack overflow answered as an internal error.
 */
export function canonicalJson (value: unknown, depth = 0): string {
  if (depth > MAX_DIGEST_DEPTH) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: params are nested too deeply')
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v, depth + 1)).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => JSON.stringify(k) + ':' + canonicalJson((value as Record<string, unknown>)[k], depth + 1))
    return '{' + entries.join(',') + '}'
  }
  return JSON.stringify(value) ?? 'null'
}

/** A short (128-bit) digest of a JSON value, independent of key order. */
export function digest (value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest().subarray(0, 16).toString('base64url')
}
