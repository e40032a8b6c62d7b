// Guards issue 36 item 2: the argument errors of a union of constants
// (TypeBox 1.x `Type.Union([Type.Literal('a'), Type.Literal('b')])`, plain
// `anyOf` of `const`) were built by scanning Ajv's whole error list again
// for every `anyOf` error: 8,000 wrong items took 817 ms, 16,000 3,074 ms
// (quadratic). The list is now built in one pass: the work is counted here
// (reads of the error list), not timed.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import t from 'tap'
import { Type } from 'typebox'
import { defineTools } from '../../lib/definitions/tools.js'
import { problemsOf } from '../../lib/definitions/json-schema-validation.js'

const N = 4000

/** `errors` behind a proxy that counts the elements read. */
function counted (errors: ErrorObject[]): { errors: ErrorObject[], reads: () => number } {
  let reads = 0
  const proxy = new Proxy(errors, {
    get (target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver)
    }
  })
  return { errors: proxy, reads: () => reads }
}

const SCHEMAS = {
  'typebox 1.x Union of Literals': Type.Object({ xs: Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')])) }),
  'plain anyOf of const': { type: 'object', properties: { xs: { type: 'array', items: { anyOf: [{ const: 'a' }, { const: 'b' }] } } } }
} as const

for (const [name, schema] of Object.entries(SCHEMAS)) {
  t.test(`${name}: ${N} wrong items, the problem list reads each error once`, async (t) => {
    // Ajv's own errors, every one of them (allErrors, verbose), as the validator listing every problem gets them
    const check = new Ajv2020({ allErrors: true, strict: false, verbose: true }).compile(JSON.parse(JSON.stringify(schema)))
    t.notOk(check({ xs: Array.from({ length: N }, () => 0) }))
    const all = check.errors ?? []
    t.ok(all.length >= 3 * N, 'an error per failed branch and the anyOf error, per item')
    const { errors, reads } = counted(all)
    const invalid = problemsOf(errors, 'arguments', false)
    t.ok(reads() <= all.length, `${reads()} reads of ${all.length} errors (the old scan read ~${(N * all.length).toLocaleString('en')})`)
    t.equal(invalid.problems.length, 10, 'ten lines shown')
    t.equal(invalid.problems[0], 'xs[0]: expected one of "a", "b"')
    t.equal(invalid.more, N - 10, 'the rest counted')
  })

  t.test(`${name}: the tool's answer names the constants, for a small value and a large one`, async (t) => {
    const tools = defineTools({ pick: { input: schema as never, handler: () => ({ content: [] }) } })
    const small = await tools.callTool({ name: 'pick', arguments: { xs: Array.from({ length: 100 }, () => 0) } }, {} as never)
    t.match(small, { isError: true, content: [{ text: /^Invalid arguments for tool "pick": xs\[0\]: expected one of "a", "b"; xs\[1\]: .*; and 90 more$/ }] })
    const large = await tools.callTool({ name: 'pick', arguments: { xs: Array.from({ length: 16_000 }, () => 0) } }, {} as never)
    t.strictSame(large, { isError: true, content: [{ type: 'text', text: 'Invalid arguments for tool "pick": xs[0]: expected one of "a", "b"; further problems not looked for' }] })
  })
}
