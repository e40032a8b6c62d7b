/**
 * A browser client on another origin, as the README's CORS section sets it
 * up: @fastify/cors lets the browser send the request (preflight) and read
 * the answer (Access-Control-Allow-Origin); `security.allowedOrigins` lets the endpoint
 * serve that origin (DNS-rebinding defence). Each alone is not enough. Over a
 * real HTTP server on 127.0.0.1, the headers a browser would send set by hand.
 */
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import cors from '@fastify/cors'
import mcpCapabilities from '../../lib/index.js'
import { toolsModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { httpPost, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const APP_ORIGIN = 'https://app.example.com'
const DISCOVER = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }

async function start (t: Test, setup: { cors: boolean, allowedOrigins?: string[] }): Promise<string> {
  const app = Fastify()
  t.teardown(() => app.close())
  if (setup.cors) await app.register(cors, { origin: [APP_ORIGIN], exposedHeaders: ['WWW-Authenticate'] })
  await app.register(mcpCapabilities, {
    server: toolsModule(),
    serverInfo: SERVER_INFO,
    ...(setup.allowedOrigins === undefined ? {} : { security: { allowedOrigins: setup.allowedOrigins } })
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`
}

/** The preflight a browser sends before a POST with JSON and the MCP headers. */
function preflight (url: string, origin: string): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,mcp-protocol-version,mcp-method'
    }
  })
}

t.test('@fastify/cors and security.allowedOrigins together: the browser app is served and may read the answer', async (t) => {
  const url = await start(t, { cors: true, allowedOrigins: [APP_ORIGIN] })

  const pre = await preflight(url, APP_ORIGIN)
  t.equal(pre.status, 204, 'preflight answered by @fastify/cors')
  t.equal(pre.headers.get('access-control-allow-origin'), APP_ORIGIN)
  t.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/)
  t.match(pre.headers.get('access-control-allow-headers') ?? '', /mcp-method/, 'the MCP request headers are allowed')

  const reply = await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin: APP_ORIGIN })
  t.equal(reply.status, 200)
  t.equal(reply.headers['access-control-allow-origin'], APP_ORIGIN, 'the browser may read the answer')
  t.equal(reply.headers['access-control-expose-headers'], 'WWW-Authenticate')
  t.equal(reply.json.result.resultType, 'complete')

  const other = await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin: 'https://evil.example' })
  t.equal(other.status, 403, 'another origin is refused by the endpoint')
  t.equal(other.json.error.code, -32600)
  t.equal(other.headers['access-control-allow-origin'], undefined, 'and gets no CORS grant')
  t.equal((await preflight(url, 'https://evil.example')).headers.get('access-control-allow-origin'), null, 'nor in its preflight')
})

t.test('@fastify/cors alone: the endpoint still refuses the cross-origin browser', async (t) => {
  const url = await start(t, { cors: true })
  t.equal((await preflight(url, APP_ORIGIN)).status, 204, 'the preflight passes')
  const reply = await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin: APP_ORIGIN })
  t.equal(reply.status, 403, 'but the request is refused: security.allowedOrigins must list the origin too')
  t.match(reply.json.error.message, /Origin not allowed/)
})

t.test('security.allowedOrigins alone: served, but a browser could neither send nor read it', async (t) => {
  const url = await start(t, { cors: false, allowedOrigins: [APP_ORIGIN] })
  const pre = await preflight(url, APP_ORIGIN)
  t.equal(pre.headers.get('access-control-allow-origin'), null, 'no preflight grant: the browser never sends the POST')
  const reply = await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin: APP_ORIGIN })
  t.equal(reply.status, 200, 'the endpoint itself accepts the origin')
  t.equal(reply.headers['access-control-allow-origin'], undefined, 'without CORS headers the browser hides the answer')
})
