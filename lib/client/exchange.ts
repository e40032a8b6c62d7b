/**
 * One Streamable HTTP exchange: POST a JSON-RPC message, read the answer as
 * JSON or as an SSE stream, and pick out the JSON-RPC response to it.
 */
import { DiscoverHttpError } from './discover-errors.js'
import { readSseResponse, SseTooLargeError } from './sse-reader.js'

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export type JsonRpcResponse =
  | { kind: 'result', result: unknown }
  | { kind: 'error', error: JsonRpcErrorObject }

export interface ExchangeResult {
  status: number
  headers: Headers
  /** The JSON-RPC response to the request, or null when the body holds none. */
  response: JsonRpcResponse | null
  /** The start of a non-SSE body, for diagnostics. */
  bodySnippet: string
}

/** Where one discovery's messages go and its bounds: the same for every exchange it makes. */
export interface Channel {
  fetch: FetchLike
  url: string
  signal: AbortSignal
  maxBytes: number
}

/** A JSON-RPC request (with an `id`) or notification. */
export interface OutgoingMessage {
  id?: string | number
  method: string
  [key: string]: unknown
}

const SNIPPET = 512

let nextId = 1
/** Request ids, unique within the process. */
export function newRequestId (): number {
  return nextId++
}

/** A copy of `base` with the headers every POST of Streamable HTTP carries (what is sent, what is accepted back). */
export function postHeaders (base: ConstructorParameters<typeof Headers>[0]): Headers {
  const headers = new Headers(base)
  headers.set('content-type', 'application/json')
  headers.set('accept', 'application/json, text/event-stream')
  return headers
}

/** POSTs the JSON-RPC request `method` with a fresh id, and reads the response to it. */
export async function request (channel: Channel, headers: Headers, method: string, params: Record<string, unknown>): Promise<ExchangeResult> {
  return await exchange(channel, headers, { jsonrpc: '2.0', id: newRequestId(), method, params })
}

export async function exchange (channel: Channel, headers: Headers, body: OutgoingMessage): Promise<ExchangeResult> {
  const { url, signal, maxBytes } = channel
  const res = await channel.fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal,
    redirect: 'follow'
  })
  const contentType = res.headers.get('content-type') ?? ''
  const matches = (message: unknown): boolean => toResponse(message, body.id) !== null

  if (res.body === null) return { status: res.status, headers: res.headers, response: null, bodySnippet: '' }

  if (/^\s*text\/event-stream/i.test(contentType)) {
    try {
      const message = await readSseResponse(res.body, matches, maxBytes)
      return { status: res.status, headers: res.headers, response: toResponse(message, body.id), bodySnippet: '' }
    } catch (err) {
      if (err instanceof SseTooLargeError) throw tooLarge(url, body.method, res.status, maxBytes)
      throw err
    }
  }

  const text = await readText(res.body, maxBytes, () => tooLarge(url, body.method, res.status, maxBytes))
  let message: unknown = null
  try {
    message = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, response: toResponse(message, body.id), bodySnippet: text.slice(0, SNIPPET) }
}

function tooLarge (url: string, method: string, status: number, maxBytes: number): DiscoverHttpError {
  return new DiscoverHttpError(url, method, status, `${method} answer is larger than ${maxBytes} bytes`)
}

async function readText (body: ReadableStream<Uint8Array>, maxBytes: number, onTooLarge: () => Error): Promise<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let received = 0
  let text = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      received += value.byteLength
      if (received > maxBytes) throw onTooLarge()
      text += decoder.decode(value, { stream: true })
    }
    return text + decoder.decode()
  } finally {
    reader.cancel().catch(() => {})
  }
}

/**
 * A JSON-RPC 2.0 response to request `id`: a result with that id, or an error
 * with that id or with none (servers answer errors they raised before reading
 * the id, such as a bad header, with `id: null`).
 */
export function toResponse (message: unknown, id: unknown): JsonRpcResponse | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null
  const m = message as Record<string, unknown>
  if (m.jsonrpc !== '2.0') return null
  if ('result' in m && id !== undefined && m.id === id) return { kind: 'result', result: m.result }
  const error = m.error
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return null
  if (!(m.id === id || m.id === null || m.id === undefined)) return null
  const { code, message: text, data } = error as Record<string, unknown>
  if (typeof code !== 'number' || !Number.isInteger(code)) return null
  return { kind: 'error', error: { code, message: typeof text === 'string' ? text : '', data } }
}
