// Guards the fourth hostile review's nested-skill finding: a skill nested in
// another (its folder below the other's, so its files are also supporting
// files of the enclosing skill) had its files and folders guarded by the
// enclosing skill's scopes: a caller without the nested skill's scopes got
// 403 from `skills/get` but read its SKILL.md and files with
// `resources/read` and listed them with `resources/directory/read`. Reading
// them now needs the nested skill's own scopes, as skills.md says.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { handbookWithPayroll } from '../skills/helpers.js'

t.test('a nested skill\'s files need its scopes, whoever encloses it', async (t) => {
  const root = handbookWithPayroll(t)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      handbook: { directory: `${root}/handbook` },
      'handbook/payroll': { directory: `${root}/handbook/payroll`, scopes: ['payroll:read'] }
    }),
    serverInfo: { name: 'nested-scopes', version: '1.0.0' },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'hr' ? ['payroll:read'] : [] })
    }
  })
  const client = mcpClient(t, app)
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  const guarded: Array<[string, string]> = [
    ['skills/get', 'skill://handbook/payroll/SKILL.md'],
    ['resources/read', 'skill://handbook/payroll/SKILL.md'],
    ['resources/read', 'skill://handbook/payroll/rates/2027.md'],
    ['resources/directory/read', 'skill://handbook/payroll'],
    ['resources/directory/read', 'skill://handbook/payroll/rates']
  ]
  for (const [method, uri] of guarded) {
    t.equal((await client.modern(method, { uri }, as('staff'))).status, 403, `${method} ${uri} needs payroll:read`)
    t.equal((await client.modern(method, { uri }, as('hr'))).status, 200, `${method} ${uri} with it`)
  }
  // The enclosing skill's own files need nothing more than before, and the nested files are served as its manifest digests them.
  t.equal((await client.modern('resources/read', { uri: 'skill://handbook/intro.md' }, as('staff'))).json.result.contents[0].text, 'welcome')
  t.equal((await client.modern('resources/read', { uri: 'skill://handbook/payroll/rates/2027.md' }, as('hr'))).json.result.contents[0].text, 'confidential rates')
})
