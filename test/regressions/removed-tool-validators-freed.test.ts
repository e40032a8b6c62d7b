// Guards issue 36 item 13: plain JSON Schema and TypeBox 1.x tools added,
// called and removed at runtime stayed in Ajv's schema cache and code scope
// (one shared instance keeps every function it compiled) and in the shared
// validator memo: 4.4 KiB per removed tool, without bound. Each compiled
// schema now has Ajv instances of its own and the memo holds validators
// weakly, so what was compiled for a removed or replaced tool is collected.
// Checked on the compiled functions themselves (weak references), not on
// heap figures; the heap over 10,000 cycles is in `npm run bench:hostile`.
import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import { Type } from 'typebox'
import { defineTools } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from '../definitions/helpers.js'
import { settle } from './helpers.js'

const CYCLES = 40

t.test('validators compiled for tools removed or replaced at runtime are collected', async (t) => {
  const compiled: Array<WeakRef<object>> = []
  const compile = Ajv2020.prototype.compile
  Ajv2020.prototype.compile = function (this: Ajv2020, schema: never, ...rest: never[]) {
    const validate = (compile as (...args: unknown[]) => object).call(this, schema, ...rest)
    if ((schema as { title?: unknown }).title === 'churn') compiled.push(new WeakRef(validate))
    return validate
  } as typeof compile
  t.teardown(() => { Ajv2020.prototype.compile = compile })

  const { app } = await serve(t, defineTools({}))
  const client = injectClient(app)
  for (let i = 0; i < CYCLES; i++) {
    const name = `tool_${i}`
    // a schema of its own per tool (not shared with another), in both Ajv-checked kinds
    const input = i % 2 === 0
      ? { title: 'churn', type: 'object', properties: { n: { type: 'integer', maximum: i } }, required: ['n'] } as const
      : Type.Object({ n: Type.Integer({ maximum: i }) }, { title: 'churn' })
    app.mcp.tools.add(name, { input, handler: () => 'ok' })
    t.equal(((await client.callTool(name, { n: 0 })).content[0] as { text?: string }).text, 'ok')
    t.equal((await client.callTool(name, { n: 'x' })).isError, true, 'a failing call compiles its details too')
    if (i % 4 === 3) {
      // replaced, then removed: both versions go
      app.mcp.tools.update(name, { input: { title: 'churn', type: 'object', properties: { m: { type: 'string', maxLength: i } } }, handler: () => 'ok' })
      t.equal(((await client.callTool(name, { m: 'a' })).content[0] as { text?: string }).text, 'ok')
    }
    await app.mcp.tools.remove(name)
  }
  t.ok(compiled.length >= 2 * CYCLES, `${compiled.length} functions compiled`)
  await settle()
  const alive = compiled.filter((ref) => ref.deref() !== undefined).length
  t.equal(alive, 0, `${alive} of ${compiled.length} compiled functions still alive after the tools were removed`)
})

t.test('a validator is kept while a tool uses it, and shared by tools with the same schema', async (t) => {
  const schema = { title: 'kept', type: 'object', properties: { n: { type: 'integer' } } } as const
  const { app } = await serve(t, defineTools({ a: { input: schema, handler: () => 'a' } }))
  const client = injectClient(app)
  app.mcp.tools.add('b', { input: schema, handler: () => 'b' })
  let compiles = 0
  const compile = Ajv2020.prototype.compile
  Ajv2020.prototype.compile = function (this: Ajv2020, ...args: never[]) { compiles++; return (compile as (...a: unknown[]) => object).apply(this, args) } as typeof compile
  t.teardown(() => { Ajv2020.prototype.compile = compile })
  t.equal(((await client.callTool('a', { n: 1 })).content[0] as { text?: string }).text, 'a')
  await settle()
  t.equal(((await client.callTool('b', { n: 1 })).content[0] as { text?: string }).text, 'b')
  t.equal(compiles, 1, 'compiled once for both, and not collected while in use')
})
