/**
 * Sealed `requestState` for multi round-trip requests (2026-07-28). The
 * state travels through the client, so it must come back unaltered (the
 * spec's "MUST reject state that fails verification"), only to the caller it
 * was issued to, and unreadable on the way: it carries the answers given in
 * earlier rounds, which are the caller's private data (issue 11).
 *
 * Token: base64url(iv[12] | AES-256-GCM ciphertext of the JSON payload | tag[16]).
 * The key is derived from each configured secret with HKDF-SHA256; the
 * additional authenticated data names this codec and the caller the state is
 * bound to, so a state replayed by another caller fails like a forged one.
 * The first secret seals; every secret opens, so a secret can be rotated.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { DerivedKeys } from '../common/derived-keys.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'

/** Separates these keys and tags from anything else the same secret might protect. */
const DOMAIN = 'fastify-mcp-capabilities/request-state/v2'
const IV_BYTES = 12
const TAG_BYTES = 16

function additionalData (binding: string): Buffer {
  return Buffer.from(DOMAIN + '\n' + binding, 'utf8')
}

export class RequestStateCodec {
  readonly #keys: DerivedKeys

  constructor (secrets: readonly Buffer[]) {
    if (secrets.length === 0) throw new TypeError('RequestStateCodec needs at least one key')
    this.#keys = new DerivedKeys(secrets, DOMAIN)
  }

  /** Encrypts `payload` for the caller named by `binding` (any string; '' binds to nobody in particular). */
  seal (payload: JsonObject, binding = ''): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#keys.sealing, iv)
    cipher.setAAD(additionalData(binding))
    const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(payload), 'utf8'), cipher.final(), cipher.getAuthTag()])
    return sealed.toString('base64url')
  }

  /** The payload of a token this endpoint sealed for `binding`, or undefined for anything else. */
  open (token: string, binding = ''): JsonObject | undefined {
    const sealed = Buffer.from(token, 'base64url')
    // base64url decoding skips foreign characters; re-encoding must give the same text back.
    if (sealed.length < IV_BYTES + TAG_BYTES + 2 || sealed.toString('base64url') !== token) return undefined
    const iv = sealed.subarray(0, IV_BYTES)
    const tag = sealed.subarray(sealed.length - TAG_BYTES)
    const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)
    const aad = additionalData(binding)
    for (const key of this.#keys.all) {
      let text: string
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
        decipher.setAAD(aad)
        decipher.setAuthTag(tag)
        text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
      } catch {
        continue // another key, or not ours
      }
      try {
        const payload: unknown = JSON.parse(text)
        return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload as JsonObject : undefined
      } catch {
        return undefined
      }
    }
    return undefined
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
