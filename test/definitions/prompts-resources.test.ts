/**
 * definePrompts and defineResources: listed forms derived from the
 * definitions (valid per the spec), arguments validated (-32602 naming each
 * one), URI templates matched and decoded, unknown URIs "not found", and
 * `complete` built from the completers of both, whichever `complete` the
 * module ends up with.
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { definePrompts } from '../../lib/definitions/prompts.js'
import { defineResources } from '../../lib/definitions/resources.js'
import { composeServer } from '../../lib/definitions/compose.js'
import { injectClient } from '../../lib/testing/index.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { hasNoSymbols, isDeeplyFrozen, serve } from './helpers.js'

const NOTES = new Map([['1', 'Milk'], ['2', 'Eggs'], ['12', 'Flour'], ['a b', 'Spaced']])

const prompts = definePrompts({
  summarise: {
    title: 'Summarise',
    description: 'Summarises a note.',
    arguments: Type.Object({
      id: Type.String({ description: 'The note id' }),
      style: Type.Optional(Type.Union([Type.Literal('short'), Type.Literal('long')], { title: 'Style' }))
    }),
    complete: { id: (value) => [...NOTES.keys()].filter((id) => id.startsWith(value)) },
    scopes: ['notes:read'],
    handler: ({ id, style }) => `Summarise note ${id} (${style ?? 'short'}): ${NOTES.get(id) ?? '?'}`
  },
  greet: {
    handler: async () => ({ description: 'A greeting', messages: [{ role: 'assistant', content: { type: 'text', text: 'Hello!' } }] })
  }
})

const resources = defineResources({
  readme: { uri: 'docs://readme', title: 'Read me', mimeType: 'text/markdown', size: 6, read: () => '# Hi\n' },
  note: {
    uriTemplate: 'notes://note/{id}',
    description: 'A note by id',
    mimeType: 'text/plain',
    scopes: ['notes:read'],
    list: () => [...NOTES.keys()].map((id) => ({ uri: `notes://note/${encodeURIComponent(id)}`, name: `note ${id}` })),
    complete: { id: (value) => [...NOTES.keys()].filter((id) => id.startsWith(value)).concat(Array.from({ length: 200 }, (_, i) => `x${i}`)) },
    read: ({ id }, uri) => {
      const text = NOTES.get(id)
      return text === undefined ? { contents: [] } : { contents: [{ uri, mimeType: 'text/plain', text }] }
    }
  },
  blob: {
    uriTemplate: 'files://{dir}/{name}',
    read: async ({ dir, name }, uri) => ({ contents: [{ uri, blob: Buffer.from(`${dir}/${name}`).toString('base64') }] })
  }
})

t.test('listed prompts, resources and templates are plain, frozen and valid per the spec', async (t) => {
  const prompt = prompts.listPrompts()
  t.ok(isDeeplyFrozen(prompt) && hasNoSymbols(prompt))
  t.strictSame(prompt.prompts, [
    {
      name: 'summarise',
      title: 'Summarise',
      description: 'Summarises a note.',
      arguments: [{ name: 'id', description: 'The note id', required: true }, { name: 'style', title: 'Style', required: false }]
    },
    { name: 'greet' }
  ])
  t.strictSame(resources.listResourceTemplates().resourceTemplates, [
    { uriTemplate: 'notes://note/{id}', name: 'note', description: 'A note by id', mimeType: 'text/plain' },
    { uriTemplate: 'files://{dir}/{name}', name: 'blob' }
  ])
  t.ok(isDeeplyFrozen(resources.listResourceTemplates()))
  const listed = await resources.listResources()
  t.strictSame(listed.resources[0], { uri: 'docs://readme', name: 'readme', title: 'Read me', mimeType: 'text/markdown', size: 6 })
  t.equal(listed.resources.length, 1 + NOTES.size, 'template list() results follow the static ones')
  for (const version of ['2025-11-25', '2026-07-28'] as const) {
    for (const [def, items] of [['Prompt', prompt.prompts], ['Resource', listed.resources], ['ResourceTemplate', resources.listResourceTemplates().resourceTemplates]] as const) {
      const validate = specValidator(version, def)
      for (const item of items) t.ok(validate(item), `${version} ${def}: ${JSON.stringify(validate.errors)}`)
    }
  }
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: prompts validate their arguments; resources read by URI and template`, async (t) => {
    const { app } = await serve(t, { ...prompts, ...resources })
    const client = injectClient(app, { era })

    const got = await client.getPrompt('summarise', { id: '2' })
    t.strictSame(got.messages, [{ role: 'user', content: { type: 'text', text: 'Summarise note 2 (short): Eggs' } }])
    t.strictSame((await client.getPrompt('greet')).description, 'A greeting')
    await t.rejects(client.getPrompt('summarise', { style: 'medium' }), {
      code: -32602,
      message: 'Invalid arguments for prompt "summarise": id: required property missing (expected string); style: expected one of "short", "long"'
    })
    await t.rejects(client.getPrompt('nope'), { code: -32602, message: 'Unknown prompt: nope' })

    t.strictSame((await client.readResource('docs://readme')).contents, [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi\n' }])
    t.strictSame((await client.readResource('notes://note/a%20b')).contents, [{ uri: 'notes://note/a%20b', mimeType: 'text/plain', text: 'Spaced' }], 'variables are percent-decoded')
    t.strictSame((await client.readResource('files://docs/x.txt')).contents, [{ uri: 'files://docs/x.txt', blob: Buffer.from('docs/x.txt').toString('base64') }])
    await t.rejects(client.readResource('notes://note/1/extra'), { message: 'Resource not found: notes://note/1/extra' }, 'a variable never spans a "/"')
    await t.rejects(client.readResource('notes://note/%E0%A4%A'), { message: 'Resource not found: notes://note/%E0%A4%A' }, 'malformed percent-encoding matches nothing')
  })

  t.test(`${era}: complete answers from prompt and template completers (capped at 100)`, async (t) => {
    // resources spread last: its `complete` still serves the prompts' completers through the module
    const { app } = await serve(t, { ...prompts, ...resources })
    const client = injectClient(app, { era })
    const discovered = await client.discover() as { capabilities: Record<string, unknown> }
    t.ok(discovered.capabilities.completions, 'completions advertised')
    t.strictSame((await client.complete({ type: 'ref/prompt', name: 'summarise' }, { name: 'id', value: '1' })).completion,
      { values: ['1', '12'], total: 2, hasMore: false })
    t.strictSame((await client.complete({ type: 'ref/prompt', name: 'summarise' }, { name: 'style', value: '' })).completion,
      { values: [], total: 0, hasMore: false }, 'an argument without a completer: no values')
    const many = (await client.complete({ type: 'ref/resource', uri: 'notes://note/{id}' }, { name: 'id', value: '' })).completion
    t.strictSame([many.values.length, many.total, many.hasMore], [100, 204, true])
    await t.rejects(client.complete({ type: 'ref/prompt', name: 'nope' }, { name: 'id', value: '' }), { code: -32602 })
    await t.rejects(client.complete({ type: 'ref/resource', uri: 'other://{x}' }, { name: 'x', value: '' }), { code: -32602 })
  })
}

t.test('scopes: the composed getPrompt and readResource requirements answer the scopes each request needs', async (t) => {
  const { scopes } = composeServer({ ...prompts, ...resources }, undefined)
  const promptScopes = scopes.getPrompt
  t.strictSame(promptScopes?.({ name: 'summarise' }), ['notes:read'])
  t.equal(promptScopes?.({ name: 'greet' }), undefined)
  const readScopes = scopes.readResource
  t.strictSame(readScopes?.({ uri: 'notes://note/7' }), ['notes:read'])
  t.equal(readScopes?.({ uri: 'docs://readme' }), undefined)
  // filterLists asks about listed templates by their text
  t.strictSame(readScopes?.({ uriTemplate: 'notes://note/{id}' }), ['notes:read'])
  t.equal(readScopes?.({ uriTemplate: 'files://{dir}/{name}' }), undefined)
  t.equal(readScopes?.({ uriTemplate: 'notes://note/{other}' }), undefined, 'only a template it defines')
})

t.test('mistakes in definitions fail at once with FST_MCP_INVALID_DEFINITION', async (t) => {
  const read = () => ''
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['non-string prompt argument', () => definePrompts({ p: { arguments: Type.Object({ n: Type.Number() }) as any, handler: () => '' } }), /argument "n" must be a string schema/],
    ['completer for an unknown argument', () => definePrompts({ p: { arguments: Type.Object({ a: Type.String() }), complete: { b: () => [] } as any, handler: () => '' } }), /"complete" names "b"/],
    ['operator in a template', () => defineResources({ r: { uriTemplate: 'files://{+path}', read } }), /"\{\+path\}" is not a simple variable/],
    ['unbalanced braces', () => defineResources({ r: { uriTemplate: 'files://{a', read } }), /unbalanced braces/],
    ['relative uri', () => defineResources({ r: { uri: 'readme', read } }), /"uri" must be an absolute URI/],
    ['neither uri nor template', () => defineResources({ r: { read } }), /needs a "uri"/],
    ['both', () => defineResources({ r: { uri: 'a://b', uriTemplate: 'a://{b}', read } as any }), /not both/],
    ['no read', () => defineResources({ r: { uri: 'a://b' } as any }), /resource "r": "read": is required: expected a function/],
    ['list not a function', () => defineResources({ r: { uriTemplate: 'a://{b}', list: [], read } as any }), /resource "r": "list": expected a function/],
    ['mimeType not a string', () => defineResources({ r: { uri: 'a://b', mimeType: 1, read } as any }), /resource "r": "mimeType": expected a string/],
    ['unknown resource field (a typo)', () => defineResources({ r: { uri: 'a://b', mimetype: 'text/plain', read } as any }), /resource "r": "mimetype": unknown field \(known: uri, .*\); did you mean "mimeType"\?/],
    ['prompt without a handler', () => definePrompts({ p: {} as any }), /prompt "p": "handler": is required: expected a function/],
    ['unknown prompt field', () => definePrompts({ p: { argumets: Type.Object({}), handler: () => '' } as any }), /prompt "p": "argumets": unknown field \(known: title, description, arguments, .*\); did you mean "arguments"\?/],
    ['template completer for an unknown variable', () => defineResources({ r: { uriTemplate: 'a://{b}', complete: { c: () => [] } as any, read } }), /not a variable of a:\/\/\{b\}/]
  ]
  for (const [what, make, message] of cases) t.throws(make, { code: 'FST_MCP_INVALID_DEFINITION', message }, what)
})
