/**
 * The client side the listen benchmarks share: open one `subscriptions/listen`
 * stream (resolving once it is acknowledged), hear its notifications as raw
 * SSE blocks, and wait for a typed message from a benchmark's child process.
 */
import type { ChildProcess } from 'node:child_process'
import http from 'node:http'
import { SseSplitter } from '../test/helpers/sse.js'

export interface ListenHandlers {
  /** A `notifications/tools/list_changed` arrived at `now` (monotonic ns). */
  onNotification: (now: bigint) => void
  /** The server's final result arrived (the stream is closing). */
  onFinal?: () => void
  onEnd?: () => void
}

export interface ListenStream {
  req: http.ClientRequest
  res: http.IncomingMessage
}

/**
 * Reads a stream's response: one refused (not 200: a limit, a bad request)
 * rejects, as it would otherwise wait forever; else each SSE block goes to
 * `onEvent` with its arrival time, raw, not parsed JSON (the reader's own
 * cost stays out of the figures). True when the stream is open.
 */
function readStream (res: http.IncomingMessage, what: string, handlers: ListenHandlers, reject: (err: Error) => void, onEvent: (event: string, now: bigint) => void): boolean {
  if (res.statusCode !== 200) {
    res.resume()
    reject(new Error(`${what} answered HTTP ${res.statusCode ?? '?'}`))
    return false
  }
  res.setEncoding('utf8')
  const splitter = new SseSplitter()
  res.on('data', (chunk: string) => {
    const now = process.hrtime.bigint()
    for (const event of splitter.push(chunk)) onEvent(event, now)
  })
  res.on('end', () => handlers.onEnd?.())
  res.on('error', () => {})
  return true
}

/** POSTs `subscriptions/listen` for tools list changes; resolves once the server acknowledges. */
export function openListenStream (port: number, agent: http.Agent, id: number, handlers: ListenHandlers): Promise<ListenStream> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: `bench-${id}`,
    method: 'subscriptions/listen',
    params: {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      notifications: { toolsListChanged: true }
    }
  })
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen'
      }
    })
    req.on('error', reject)
    req.on('response', (res) => {
      readStream(res, 'subscriptions/listen', handlers, reject, (event, now) => {
        if (event.includes('notifications/tools/list_changed')) handlers.onNotification(now)
        else if (event.includes('notifications/subscriptions/acknowledged')) resolve({ req, res })
        else if (event.includes('"resultType":"complete"')) handlers.onFinal?.()
      })
    })
    req.end(body)
  })
}

/** Opens a legacy standalone stream (GET, 2025-11-25; lib/endpoint/standalone-stream.ts); resolves once the server answered 200. */
export function openLegacyStream (port: number, agent: http.Agent, handlers: ListenHandlers): Promise<ListenStream> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'GET', agent, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } })
    req.on('error', reject)
    req.on('response', (res) => {
      const open = readStream(res, 'GET /mcp', handlers, reject, (event, now) => {
        if (event.includes('notifications/tools/list_changed')) handlers.onNotification(now)
      })
      if (open) resolve({ req, res })
    })
    req.end()
  })
}

/** The next IPC message of `kind` from a benchmark's child process. */
export function nextMessage<M extends { kind: string }, K extends M['kind']> (child: ChildProcess, kind: K, timeoutMs: number): Promise<Extract<M, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${kind} from the server`)), timeoutMs)
    const onMessage = (message: M): void => {
      if (message.kind !== kind) return
      clearTimeout(timer)
      child.off('message', onMessage)
      resolve(message as Extract<M, { kind: K }>)
    }
    child.on('message', onMessage)
  })
}
