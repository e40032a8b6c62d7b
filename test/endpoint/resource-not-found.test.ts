/**
 * Resource not found, in each era's words: legacy -32002, 2026-07-28 -32602
 * with `data.uri` (SEP-2164), whether the handler used `resourceNotFound()`
 * or threw the legacy code itself.
 */
import t from 'tap'
import { McpError, resourceNotFound } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { serve } from '../definitions/helpers.js'

const server = {
  listResources: () => ({ resources: [] }),
  readResource ({ uri }: { uri: string }) {
    if (uri === 'raw://thrown') throw new McpError(-32002, 'gone')
    throw resourceNotFound(uri)
  }
}

t.test('legacy: -32002 with data.uri', async (t) => {
  const { app } = await serve(t, server)
  const error = await injectClient(app, { era: 'legacy' }).readResource('test://missing').catch((err: unknown) => err)
  t.match(error, { status: 200, code: -32002, message: 'Resource not found: test://missing', data: { uri: 'test://missing' } })
})

t.test('modern: -32602 (HTTP 400) with data.uri, also for a hand-thrown -32002', async (t) => {
  const { app } = await serve(t, server)
  const client = injectClient(app, { era: 'modern' })
  const error = await client.readResource('test://missing').catch((err: unknown) => err)
  t.match(error, { status: 400, code: -32602, message: 'Resource not found: test://missing', data: { uri: 'test://missing' } })
  const thrown = await client.readResource('raw://thrown').catch((err: unknown) => err) as McpError
  t.match(thrown, { code: -32602, message: 'gone', data: { uri: 'raw://thrown' } }, 'data.uri filled in from the request')
  const validate = specValidator('2026-07-28', 'InvalidParamsError')
  t.ok(validate({ code: thrown.code, message: thrown.message, data: thrown.data }), JSON.stringify(validate.errors))
})
