// Guards issue 22 item 13: a token sent as `?access_token=` (refused, as MCP
// allows tokens only in the Authorization header) was written to the request
// log, because Fastify logs the URL of every request. Decision: on the
// endpoint's routes (the endpoint and its metadata document) the value of an
// `access_token` query parameter is replaced by "[redacted]" wherever a log
// line carries the URL (`req.url`, `url`, `originalUrl`), like the header;
// the rest of the URL stays, for debugging.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { type HandlerContext } from '../../lib/index.js'
import { redactUrl } from '../../lib/endpoint/log-redaction.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const RESOURCE = 'https://mcp.example.com/mcp'

t.test('no log line of the endpoint carries a token sent in the query string', async (t) => {
  const lines: string[] = []
  const app = Fastify({ logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'where', inputSchema: { type: 'object' } }] }),
      callTool (_params: unknown, ctx: HandlerContext) {
        // A handler that logs the URL itself, as apps do.
        ctx.request.log.info({ url: ctx.request.url }, 'tool called')
        throw new Error('a handler fault, logged with its request')
      }
    },
    serverInfo: SERVER_INFO,
    authorization: {
      resource: RESOURCE,
      authorizationServers: ['https://auth.example.com'],
      verifyAccessToken: (token) => token === 'header-token' ? { subject: 'alice', issuer: 'https://auth.example.com' } : null
    }
  })
  const call = (url: string, authorization?: string) => app.inject({
    method: 'POST',
    url,
    headers: { ...modernHeaders('tools/call', { name: 'where' }), 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'where', arguments: {}, _meta: modernMeta() } })
  })
  t.equal((await call('/mcp?access_token=QUERY-SECRET-ONE')).statusCode, 401, 'a token in the query is refused')
  t.equal((await call('/mcp?debug=1&ACCESS_TOKEN=QUERY-SECRET-TWO&x=y', 'Bearer header-token')).statusCode, 200, 'served with the header token')
  t.equal((await app.inject({ method: 'GET', url: '/mcp?access%5Ftoken=QUERY-SECRET-THREE' })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp?access_token=QUERY-SECRET-FOUR' })).statusCode, 200)
  const log = lines.join('')
  t.match(log, /incoming request/, 'requests were logged')
  t.match(log, /tool called/, 'the handler logged its URL')
  t.match(log, /a handler fault/, 'the fault was logged')
  t.notMatch(log, /QUERY-SECRET/, 'no token from the query string is in any log line')
  t.match(log, '/mcp?debug=1&ACCESS_TOKEN=[redacted]&x=y', 'the rest of the URL is kept')
  t.match(log, '/.well-known/oauth-protected-resource/mcp?access_token=[redacted]', 'the metadata route too')
})

t.test('redactUrl', async (t) => {
  t.equal(redactUrl('/mcp'), '/mcp')
  t.equal(redactUrl('/mcp?access_token=abc'), '/mcp?access_token=[redacted]')
  t.equal(redactUrl('/mcp?a=1&access_token=abc&access_token=def#x'), '/mcp?a=1&access_token=[redacted]&access_token=[redacted]#x')
  t.equal(redactUrl('/mcp?my_access_token=abc'), '/mcp?my_access_token=abc', 'another parameter that ends alike is left alone')
  t.equal(redactUrl('/mcp?access_token='), '/mcp?access_token=[redacted]')
})
