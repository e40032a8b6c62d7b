/**
 * A legacy client's side of a request over real HTTP: POST a JSON-RPC
 * request, read the SSE (or JSON) response message by message, and POST
 * answers back as separate requests.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { parseSseBlock, SseSplitter } from '../helpers/sse.js'

export interface StreamCall {
  status: number
  contentType: string
  /** The next JSON-RPC message of the response (the whole body when it is JSON); rejects after `timeoutMs`. */
  next (timeoutMs?: number): Promise<any>
  /** Resolves when the response has ended, with whatever was left unread. */
  ended (): Promise<any[]>
  /** Drops the connection, as a client that goes away. */
  destroy (): void
}

export function legacyHeaders (version: string, accept = 'application/json, text/event-stream'): Record<string, string> {
  return { 'content-type': 'application/json', accept, 'mcp-protocol-version': version }
}

/** POSTs `message` and resolves once the response head is in. */
export function openCall (url: string, message: unknown, headers: Record<string, string>): Promise<StreamCall> {
  const body = JSON.stringify(message)
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage): void => {
      const queue: any[] = []
      const waiters: Array<(value: any) => void> = []
      let buffer = ''
      const splitter = new SseSplitter()
      let done = false
      const endWaiters: Array<() => void> = []
      const sse = String(res.headers['content-type']).startsWith('text/event-stream')
      const push = (msg: any): void => {
        const waiter = waiters.shift()
        if (waiter !== undefined) waiter(msg)
        else queue.push(msg)
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (!sse) {
          buffer += chunk
          return
        }
        for (const block of splitter.push(chunk)) {
          const event = parseSseBlock(block)
          if (event.data !== undefined) push(event.data)
        }
      })
      const finish = (): void => {
        if (done) return
        done = true
        if (!sse && buffer !== '') push(JSON.parse(buffer))
        for (const w of endWaiters.splice(0)) w()
        for (const w of waiters.splice(0)) w(undefined)
      }
      res.on('end', finish)
      res.on('close', finish)
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type']),
        next (timeoutMs = 5000) {
          if (queue.length > 0) return Promise.resolve(queue.shift())
          if (done) return Promise.resolve(undefined)
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no message within ${timeoutMs} ms`)), timeoutMs)
            waiters.push((msg) => { clearTimeout(timer); resolve(msg) })
          })
        },
        ended () {
          if (done) return Promise.resolve(queue.splice(0))
          return new Promise((resolve) => endWaiters.push(() => resolve(queue.splice(0))))
        },
        destroy () {
          req.destroy()
          res.destroy()
        }
      })
    }
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, onResponse)
    req.on('error', reject)
    req.end(body)
  })
}
