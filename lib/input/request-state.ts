/**
 * Tamper-evident `requestState` for multi round-trip requests (2026-07-28).
 * The state travels through the client, so it is signed with HMAC-SHA256 and
 * checked on the way back (the spec's "MUST reject state that fails
 * verification"). It is signed, not encrypted: the client can read it, so it
 * holds nothing the client did not send or was not shown.
 *
 * Token: base64url(JSON payload) "." base64url(HMAC(key, domain + payload)).
 * The first key signs; every key verifies, so a secret can be rotated.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { JsonObject } from '../protocol/jsonrpc.js'

/** Separates these MACs from anything else the same secret might sign. */
const DOMAIN = 'fastify-mcp-capabilities/request-state/v1.'

function mac (key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(payload).digest()
}

export class RequestStateCodec {
  readonly #keys: readonly Buffer[]

  constructor (keys: readonly Buffer[]) {
    if (keys.length === 0) throw new TypeError('RequestStateCodec needs at least one key')
    this.#keys = keys
  }

  seal (payload: JsonObject): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
    return body + '.' + mac(this.#keys[0] as Buffer, body).toString('base64url')
  }

  /** The payload of a token this endpoint signed, or undefined for anything else. */
  open (token: string): JsonObject | undefined {
    const dot = token.indexOf('.')
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined
    const body = token.slice(0, dot)
    const given = Buffer.from(token.slice(dot + 1), 'base64url')
    // base64url decoding skips foreign characters; re-encoding must give the same text back.
    if (given.toString('base64url') !== token.slice(dot + 1)) return undefined
    const valid = this.#keys.some((key) => {
      const expected = mac(key, body)
      return expected.length === given.length && timingSafeEqual(expected, given)
    })
    if (!valid) return undefined
    try {
      const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
      return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload as JsonObject : undefined
    } catch {
      return undefined
    }
  }
}

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => JSON.stringify(k) + ':' + canonicalJson((value as Record<string, unknown>)[k]))
    return '{' + entries.join(',') + '}'
  }
  return JSON.stringify(value) ?? 'null'
}

/** A short (128-bit) digest of a JSON value, independent of key order. */
export function digest (value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest().subarray(0, 16).toString('base64url')
}
