// A define result's handler taken out of its result (`{ callTool: tools.callTool }`)
// lost the group: alone, the module was served "as it is", outside the endpoint's
// catalogue (runtime changes did not reach those definitions); beside another
// define result, the handler was dropped without a word. Such a module is now
// refused at registration, naming the handler and the fix (spread the result).
import t from 'tap'
import { definePrompts, defineResources, defineTools } from '../../lib/index.js'
import { registrationError as registrationErrorOf } from '../helpers/mcp-fixtures.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

const registrationError = async (server: object) => await registrationErrorOf({ server, serverInfo: { name: 't', version: '1' } })

const tools = defineTools({ wipe: { scopes: ['admin'], handler: () => text('wiped') } })
const prompts = definePrompts({ p: { handler: () => 'p' } })
const resources = defineResources({ r: { uri: 'x://r', read: () => 'r' } })

t.test('a group handler served without its group is refused, named, with the fix', async (t) => {
  const cases: Array<[string, object, string]> = [
    ['callTool alone', { callTool: tools.callTool }, 'callTool'],
    ['listTools beside a raw callTool', { listTools: tools.listTools, callTool: () => text('raw') }, 'listTools'],
    ['getPrompt alone', { getPrompt: prompts.getPrompt }, 'getPrompt'],
    ['readResource alone', { readResource: resources.readResource }, 'readResource'],
    // Another group is present, but not the one this handler belongs to: it would be dropped silently.
    ['callTool beside another group', { ...defineTools({ other: { handler: () => text('o') } }), listPrompts: prompts.listPrompts }, 'listPrompts']
  ]
  for (const [label, server, handler] of cases) {
    const error = await registrationError(server)
    t.equal(error?.code, 'FST_MCP_INVALID_SERVER', label)
    t.match(error?.message, new RegExp(`"${handler}"`), `${label}: names the handler`)
    t.match(error?.message, /spread/, `${label}: says how to fix it`)
  }
})

t.test('the spread result, alone or beside others, is still served', async (t) => {
  t.equal(await registrationError({ ...tools }), undefined)
  t.equal(await registrationError({ ...tools, ...prompts, ...resources }), undefined)
  // A group's handler next to its own group (the spread already put it there) is the group's.
  t.equal(await registrationError({ ...tools, callTool: tools.callTool }), undefined)
})
