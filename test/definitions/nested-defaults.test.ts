/**
 * Nested defaults are filled in by TypeBox's `Value.Default`, imported when
 * the first definition declaring some is made (lib/definitions/nested-defaults.ts).
 * A call in the tick of that definition, before the import settled, is
 * answered once it has (a promise, from the same TypeBox copy that compiled
 * the schema); every later call synchronously. Its own file: a process that
 * loaded the module before cannot show the first case.
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { isThenable } from '../../lib/common/maybe-promise.js'
import { defineTools } from '../../lib/definitions/tools.js'
import { nestedDefaultsLoading } from '../../lib/definitions/nested-defaults.js'

t.test('a call before Value.Default is loaded waits for it; later calls are synchronous', async (t) => {
  t.equal(nestedDefaultsLoading(), undefined, 'nothing is loading before a definition asks for it')
  const seen: unknown[] = []
  const tools = defineTools({
    nested: {
      input: Type.Object({
        opts: Type.Optional(Type.Object({ depth: Type.Integer({ default: 3 }), mode: Type.Union([Type.Literal('a'), Type.Literal('b')], { default: 'b' }) }, { default: {} }))
      }),
      handler: (args) => { seen.push(args); return { content: [] } }
    }
  })
  const loading = nestedDefaultsLoading()
  t.ok(loading instanceof Promise, 'the definition started the import')
  const early = tools.callTool({ name: 'nested', arguments: {} }, {} as never)
  t.ok(isThenable(early), 'the call in the tick of the definition is answered later')
  t.strictSame(seen, [], 'not handled before the defaults are filled in')
  t.strictSame(await early, { content: [] })
  t.strictSame(seen, [{ opts: { depth: 3, mode: 'b' } }], 'then with its nested defaults')
  t.equal(nestedDefaultsLoading(), undefined, 'loaded')
  const later = tools.callTool({ name: 'nested', arguments: { opts: { mode: 'a' } } }, {} as never)
  t.notOk(isThenable(later), 'a later call is synchronous')
  t.strictSame(seen[1], { opts: { depth: 3, mode: 'a' } })
  const invalid = await tools.callTool({ name: 'nested', arguments: { opts: { depth: 'deep' } } }, {} as never) as { isError?: boolean, content: Array<{ text: string }> }
  t.equal(invalid.isError, true, 'invalid nested arguments are refused after their defaults are filled in')
  t.match(invalid.content[0]?.text, /opts\.depth: expected integer/)
})
