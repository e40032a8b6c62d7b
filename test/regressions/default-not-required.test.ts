/**
 * `Type.Number({ default: 3 })` may be left out (the validator fills it in),
 * so the listed schema must not call it required; TypeBox lists it in
 * `required` all the same. Checked with Ajv reading the listed schema, as a
 * client validating its arguments would.
 */
import { Type } from '@sinclair/typebox'
import Ajv2020Module from 'ajv/dist/2020.js'
import t from 'tap'
import { definePrompts, defineTools } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from '../definitions/helpers.js'
import { specValidator } from '../helpers/spec-schema.js'

const tools = defineTools({
  scale: {
    input: Type.Object({
      value: Type.Number(),
      factor: Type.Number({ default: 3 }),
      options: Type.Object({ round: Type.Boolean({ default: false }), digits: Type.Integer() })
    }),
    output: Type.Object({ result: Type.Number(), unit: Type.String({ default: 'x' }) }),
    handler: ({ value, factor, options }) => ({ result: options.round ? Math.round(value * factor) : value * factor, unit: 'x' })
  }
})

t.test('tools: defaulted properties are not listed as required, at any depth; output schemas are left alone', async (t) => {
  const tool = tools.listTools().tools[0] as unknown as { inputSchema: Record<string, any>, outputSchema: Record<string, any> }
  t.strictSame(tool.inputSchema.required, ['value', 'options'])
  t.strictSame(tool.inputSchema.properties.options.required, ['digits'])
  t.strictSame(tool.outputSchema.required, ['result', 'unit'], 'a result must carry every field: output is not relaxed')
  t.ok(specValidator('2025-11-25', 'Tool')(tool), 'still a spec Tool')
  const Ajv2020 = Ajv2020Module.default
  const clientSide = new Ajv2020({ strict: false }).compile(tool.inputSchema)
  t.ok(clientSide({ value: 2, options: { digits: 1 } }), 'a client reading the listed schema may leave defaults out')
  const { app } = await serve(t, tools)
  const result = await injectClient(app).callTool('scale', { value: 2, options: { digits: 1 } })
  t.strictSame(result.structuredContent, { result: 6, unit: 'x' }, 'and the server fills them in')
})

t.test('prompts: a defaulted argument is listed as not required', async (t) => {
  const prompts = definePrompts({
    greet: {
      arguments: Type.Object({ name: Type.String(), tone: Type.String({ default: 'warm' }) }),
      handler: ({ name, tone }) => `Greet ${name}, ${tone}`
    }
  })
  t.strictSame(prompts.listPrompts().prompts[0]?.arguments, [{ name: 'name', required: true }, { name: 'tone', required: false }])
  const { app } = await serve(t, prompts)
  t.match(await injectClient(app).getPrompt('greet', { name: 'Ada' }), { messages: [{ content: { text: 'Greet Ada, warm' } }] })
})
