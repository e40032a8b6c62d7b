/**
 * A plain valibot schema (issue 34 item 10): listed through
 * `@valibot/to-json-schema` when it is installed, found without being
 * imported by the application; when it is not installed the definition is
 * refused naming the package. The second case runs in a child process in
 * which the package cannot be resolved.
 */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import t from 'tap'
import * as v from 'valibot'
import { defineTools } from '../../lib/definitions/tools.js'
import { definePrompts } from '../../lib/definitions/prompts.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from './helpers.js'

const input = v.object({ query: v.pipe(v.string(), v.minLength(1)), limit: v.optional(v.number(), 10) })

t.test('a plain valibot schema is listed as the converter lists it and validated by valibot', async (t) => {
  const seen: unknown[] = []
  const tools = defineTools({
    plain: { input, output: v.object({ n: v.number() }), handler: (args) => { seen.push(args); return { n: args.limit } } },
    wrapped: { input: toStandardJsonSchema(input), handler: () => 'x' }
  })
  const prompts = definePrompts({ p: { arguments: v.object({ who: v.string() }), handler: ({ who }) => `Hi ${who}` } })
  const { app } = await serve(t, { ...tools, ...prompts })
  const client = injectClient(app)
  const listed = (await client.listTools()).tools
  t.strictSame(listed[0]?.inputSchema, listed[1]?.inputSchema, 'the same JSON Schema as toStandardJsonSchema gives')
  t.match(listed[0]?.outputSchema, { type: 'object', properties: { n: { type: 'number' } } })
  t.match(await client.callTool('plain', { query: 'a' }), { structuredContent: { n: 10 } })
  t.strictSame(seen, [{ query: 'a', limit: 10 }], 'valibot\'s output, its default filled in')
  t.match(await client.callTool('plain', { query: '' }), { isError: true, content: [{ text: /query: Invalid length/ }] })
  t.match(await client.getPrompt('p', { who: 'Ada' }), { messages: [{ content: { text: 'Hi Ada' } }] })
})

t.test('without @valibot/to-json-schema installed, a plain valibot schema is refused naming it', async (t) => {
  const dir = t.testdir()
  // hides the package from module resolution, as if it were not installed
  const hide = join(dir, 'hide.cjs')
  writeFileSync(hide, `const Module = require('node:module')
const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (request === '@valibot/to-json-schema') throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' })
  return resolve.call(this, request, ...rest)
}
`)
  const script = join(dir, 'define.ts')
  writeFileSync(script, `import * as v from 'valibot'
import { defineTools } from ${JSON.stringify(join(process.cwd(), 'lib/definitions/tools.ts'))}
try {
  defineTools({ x: { input: v.object({ a: v.string() }), handler: () => 'x' } })
  console.log('defined')
} catch (err) {
  console.log(err.code + ': ' + err.message)
}
`)
  const { stdout } = await promisify(execFile)(process.execPath, ['--require', hide, '--import', 'tsx', script], { cwd: process.cwd() })
  t.match(stdout.trim(), /^FST_MCP_INVALID_DEFINITION: .*tool "x" \(input\): a valibot schema without Standard JSON Schema .*install @valibot\/to-json-schema to list it \(it is used automatically\), or wrap the schema in its toStandardJsonSchema$/)
})
