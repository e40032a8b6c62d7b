// Guards issue 22 item 14: `Authorization: Bearer ` (a client whose token
// variable is unset) was answered 400 invalid_request, so the client was
// never sent to the authorization server. Decision: an empty bearer
// credential is an invalid token, 401 with the challenge (error
// "invalid_token", resource_metadata), what the official SDK's bearer
// middleware answers for the same header (checked here against it); a
// credential that is not a b64token stays 400 invalid_request.
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import t from 'tap'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
const EMPTY = ['Bearer ', 'Bearer', 'bearer   ', 'Bearer \t ']

/** What the official SDK's bearer middleware answers for `authorization`: status and WWW-Authenticate. */
async function sdkAnswer (authorization: string): Promise<{ status: number, challenge: string | undefined }> {
  const middleware = requireBearerAuth({
    verifier: { verifyAccessToken: async () => { throw new Error('not reached for an empty token') } },
    resourceMetadataUrl: METADATA_URL
  })
  const answer = { status: 0, challenge: undefined as string | undefined }
  const res = {
    set (name: string, value: string) { if (name.toLowerCase() === 'www-authenticate') answer.challenge = value; return res },
    status (code: number) { answer.status = code; return res },
    json () { return res }
  }
  await middleware({ headers: { authorization } } as never, res as never, () => { answer.status = 200 })
  return answer
}

t.test('an empty bearer credential: 401 invalid_token with the challenge, in both eras', async (t) => {
  const app = await buildApp(t, {
    authorization: { resource: RESOURCE, authorizationServers: ['https://auth.example.com'], verifyAccessToken: () => null }
  })
  const mcp = mcpClient(t, app)
  for (const authorization of EMPTY) {
    for (const reply of [
      await mcp.modern('server/discover', {}, { headers: { authorization } }),
      await mcp.legacy('tools/list', {}, { protocolVersion: '2025-11-25', headers: { authorization } })
    ]) {
      assertError(t, reply, { status: 401, code: -32600, id: undefined, message: /^Unauthorized/ })
      const challenge = String(reply.headers['www-authenticate'])
      t.match(challenge, `resource_metadata="${METADATA_URL}"`, JSON.stringify(authorization) + ': points at the metadata')
      t.match(challenge, 'error="invalid_token"', JSON.stringify(authorization) + ': invalid_token')
    }
  }
  // Not a token at all: still the client's malformed request.
  const malformed = await mcp.modern('server/discover', {}, { headers: { authorization: 'Bearer a b' } })
  assertError(t, malformed, { status: 400, code: -32600, id: undefined })
  t.match(malformed.headers['www-authenticate'], /error="invalid_request"/)
})

t.test('the official SDK bearer middleware answers the same header alike', async (t) => {
  const sdk = await sdkAnswer('Bearer ')
  t.equal(sdk.status, 401)
  t.match(sdk.challenge, 'error="invalid_token"')
})
