/**
 * A key nobody reads fails the definition, naming the key probably meant:
 * `inputs:` in JavaScript must not silently give a tool without arguments.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { defineTools, definePrompts, defineResources } from '../../lib/index.js'

const handler = (): string => 'ok'

t.test('tools: an unknown key fails with the did-you-mean hint', async (t) => {
  t.throws(() => defineTools({ add: { inputs: Type.Object({ a: Type.Number() }), handler } as never }), {
    code: 'FST_MCP_INVALID_DEFINITION',
    message: /^Invalid definition of tool "add": "inputs": unknown field \(known: title, description, input, output, .*\); did you mean "input"\?$/
  })
  t.throws(() => defineTools({ add: { handler, ouptut: {} } as never }), { message: /"ouptut": unknown field \(known: .*\); did you mean "output"\?$/ })
  t.throws(() => defineTools({ add: { handler, somethingElse: 1 } as never }), { message: /"somethingElse": unknown field \(known: [^)]*\)$/ }, 'no hint when nothing is close')
  t.doesNotThrow(() => defineTools({ add: { title: 'Add', description: 'd', input: Type.Object({}), annotations: {}, icons: [], _meta: {}, scopes: ['s'], handler } }), 'every documented key passes')
})

t.test('prompts and resources: the same', async (t) => {
  t.throws(() => definePrompts({ p: { argument: Type.Object({}), handler } as never }), { message: /prompt "p": "argument": unknown field \(known: .*\); did you mean "arguments"\?$/ })
  t.throws(() => defineResources({ r: { url: 'docs://x', read: handler } as never }), { message: /resource "r": "url": unknown field \(known: .*\); did you mean "uri"\?$/ })
  t.throws(() => defineResources({ r: { uri: 'docs://x', handler } as never }), { message: /resource "r": "handler": unknown field/ })
})
