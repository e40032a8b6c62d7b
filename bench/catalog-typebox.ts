/**
 * The catalogue's input schemas (catalog.ts) written as TypeBox, shared by
 * the plugin's `defineTools` module (servers/defined.ts) and the floor that
 * checks arguments by hand (servers/bare-tool.ts).
 */
import { Type } from '@sinclair/typebox'

export const TOOL_INPUTS = {
  search_issues: Type.Object({
    query: Type.String({ description: 'Words to look for' }),
    state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')], { default: 'open' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }))
  }),
  get_issue: Type.Object({ number: Type.Integer({ minimum: 1, description: 'Issue number' }) }),
  create_issue: Type.Object({
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Array(Type.String(), { uniqueItems: true }))
  }),
  add_comment: Type.Object({ number: Type.Integer({ minimum: 1 }), body: Type.String({ minLength: 1 }) })
}
