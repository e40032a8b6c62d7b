/**
 * The endpoint's list step (lib/apps/ui-view.ts `withUiView`): authorization's
 * filter first, then the MCP Apps view, each only where it applies.
 */
import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { withUiView } from '../../lib/apps/ui-view.js'
import { UI_EXTENSION } from '../../lib/apps/ui-extension.js'
import type { ListFilter, Outcome } from '../../lib/handler/invoke.js'
import { OFFERED_EXTENSIONS } from '../../lib/server-module/capabilities.js'

const APPS_SERVER = { [OFFERED_EXTENSIONS]: { [UI_EXTENSION]: {} } }
const PLAIN_SERVER = {}
const WITHOUT_UI = { body: { params: { _meta: {} } } } as unknown as FastifyRequest

function list (): Outcome {
  return {
    ok: true,
    result: {
      tools: [
        { name: 'board', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://board' } } },
        { name: 'secret', inputSchema: { type: 'object' } },
        { name: 'plain', inputSchema: { type: 'object' } }
      ]
    }
  }
}

/** Authorization's part: drops the tool named "secret", and records what it was given. */
function dropSecret (seen: Outcome[]): ListFilter {
  return (_method, outcome) => {
    seen.push(outcome)
    if (!outcome.ok) return outcome
    const tools = (outcome.result.tools as Array<{ name: string }>).filter((tool) => tool.name !== 'secret')
    return { ok: true, result: { ...outcome.result, tools } }
  }
}

const names = (outcome: Outcome): string[] => outcome.ok ? (outcome.result.tools as Array<{ name: string }>).map((tool) => tool.name) : []
const uiOf = (outcome: Outcome): unknown[] => outcome.ok ? (outcome.result.tools as Array<{ _meta?: { ui?: unknown } }>).map((tool) => tool._meta?.ui) : []

t.test('neither step applies: no step at all; only authorization\'s: that one, as given', async (t) => {
  t.equal(withUiView(PLAIN_SERVER, undefined), undefined)
  const filter = dropSecret([])
  t.equal(withUiView(PLAIN_SERVER, filter), filter)
})

t.test('a module offering apps without list filtering: the view alone', async (t) => {
  const step = withUiView(APPS_SERVER, undefined)
  if (step === undefined) return t.fail('a step')
  const viewed = step('tools/list', list(), WITHOUT_UI, true)
  t.same(names(viewed), ['board', 'secret', 'plain'], 'nothing filtered')
  t.same(uiOf(viewed), [undefined, undefined, undefined], 'no UI metadata for a client without the extension')
  t.same(uiOf(step('tools/list', list(), WITHOUT_UI, false)), [{ resourceUri: 'ui://board' }, undefined, undefined], 'legacy lists keep it')
})

t.test('both: authorization\'s filter sees the full list, the view applies to what it kept', async (t) => {
  const seen: Outcome[] = []
  const step = withUiView(APPS_SERVER, dropSecret(seen))
  if (step === undefined) return t.fail('a step')
  const viewed = step('tools/list', list(), WITHOUT_UI, true)
  t.same(names(seen[0] as Outcome), ['board', 'secret', 'plain'], 'authorization ran first, on the whole list')
  t.same(uiOf(seen[0] as Outcome)[0], { resourceUri: 'ui://board' }, 'before the view removed the metadata')
  t.same(names(viewed), ['board', 'plain'])
  t.same(uiOf(viewed), [undefined, undefined])
  const failed: Outcome = { ok: false, code: -32603, message: 'boom' }
  t.equal(step('tools/list', failed, WITHOUT_UI, true), failed, 'an error outcome passes through')
})
