// Guards issue 20: `{ ...defineTools({ a }), ...defineTools({ b }) }` (the
// README's "spread them side by side") served only `b`, silently; two
// definePrompts or defineResources did the same. Every group must be served.
import t from 'tap'
import { definePrompts, defineResources, defineTools } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

t.test('spreading several define results into one module serves every definition', async (t) => {
  const server = {
    ...defineTools({ a: { handler: () => text('a') } }),
    ...defineTools({ b: { handler: () => text('b') } }),
    ...definePrompts({ p: { handler: () => 'p' } }),
    ...definePrompts({ q: { handler: () => 'q' } }),
    ...defineResources({ r: { uri: 'x://r', read: () => 'r' } }),
    ...defineResources({ s: { uri: 'x://s', read: () => 's' } })
  }
  const app = await buildApp(t, { server })
  const client = injectClient(app)
  t.strictSame((await client.listTools()).tools.map((tool) => tool.name), ['a', 'b'])
  t.strictSame((await client.callTool('a')).content, text('a').content)
  t.strictSame((await client.listPrompts()).prompts.map((prompt) => prompt.name), ['p', 'q'])
  t.strictSame((await client.listResources()).resources.map((resource) => resource.uri), ['x://r', 'x://s'])
  t.strictSame((await client.readResource('x://r')).contents, [{ uri: 'x://r', text: 'r' }])
})
