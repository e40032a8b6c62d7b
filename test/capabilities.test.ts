/**
 * buildCapabilities against docs/protocol.md ("How capabilities are derived"), row by row, in both eras,
 * plus its coded errors, class instances, freezing and determinism.
 */
import t, { type Test } from 'tap'
import { buildCapabilities, TASKS_EXTENSION } from '../lib/server-module/capabilities.js'
import { specValidator } from './helpers/spec-schema.js'

const fn = (): void => {}
const TOOLS = { listTools: fn, callTool: fn }
const RESOURCES = { listResources: fn, readResource: fn }
const PROMPTS = { listPrompts: fn, getPrompt: fn }
const ALL = {
  ...TOOLS,
  ...RESOURCES,
  listResourceTemplates: fn,
  ...PROMPTS,
  complete: fn,
  subscribeResource: fn,
  unsubscribeResource: fn,
  setLogLevel: fn
}

/** Legacy lists push changes too (the standalone GET stream). */
const L = { listChanged: true }
const OFF = { listChanged: false }
const M = { listChanged: true }
const LOG = { logging: {} }

interface Row {
  row: string
  server: object
  legacy: object
  modern: object
  /** modern with `tasks: true`; default: `modern` plus the tasks extension. */
  modernTasks?: object
}

const rows: Row[] = [
  { row: 'no handlers', server: {}, legacy: { ...LOG }, modern: { ...LOG } },
  { row: 'listTools + callTool -> tools', server: TOOLS, legacy: { tools: L, ...LOG }, modern: { tools: M, ...LOG } },
  {
    row: 'listResources + readResource -> resources',
    server: RESOURCES,
    legacy: { resources: L, ...LOG },
    modern: { resources: { ...M, subscribe: true }, ...LOG }
  },
  {
    row: 'listResourceTemplates is optional within resources',
    server: { ...RESOURCES, listResourceTemplates: fn },
    legacy: { resources: L, ...LOG },
    modern: { resources: { ...M, subscribe: true }, ...LOG }
  },
  { row: 'listPrompts + getPrompt -> prompts', server: PROMPTS, legacy: { prompts: L, ...LOG }, modern: { prompts: M, ...LOG } },
  { row: 'complete -> completions', server: { complete: fn }, legacy: { completions: {}, ...LOG }, modern: { completions: {}, ...LOG } },
  {
    row: 'subscribeResource with resources -> resources.subscribe (legacy)',
    server: { ...RESOURCES, subscribeResource: fn },
    legacy: { resources: { ...L, subscribe: true }, ...LOG },
    modern: { resources: { ...M, subscribe: true }, ...LOG }
  },
  {
    row: 'subscribeResource + unsubscribeResource with resources',
    server: { ...RESOURCES, subscribeResource: fn, unsubscribeResource: fn },
    legacy: { resources: { ...L, subscribe: true }, ...LOG },
    modern: { resources: { ...M, subscribe: true }, ...LOG }
  },
  {
    row: 'subscribeResource without resources -> nothing',
    server: { subscribeResource: fn, unsubscribeResource: fn },
    legacy: { ...LOG },
    modern: { ...LOG }
  },
  { row: 'setLogLevel -> logging (as in every module: the endpoint answers logging/setLevel)', server: { setLogLevel: fn }, legacy: { ...LOG }, modern: { ...LOG } },
  {
    row: 'every handler',
    server: ALL,
    legacy: { tools: L, resources: { ...L, subscribe: true }, prompts: L, completions: {}, logging: {} },
    modern: { tools: M, resources: { ...M, subscribe: true }, prompts: M, completions: {}, logging: {} }
  },
  {
    row: 'callTool / readResource / getPrompt alone advertise nothing',
    server: { callTool: fn, readResource: fn, getPrompt: fn, listResourceTemplates: fn },
    legacy: { ...LOG },
    modern: { ...LOG }
  },
  {
    row: 'capabilities object replaces the base set; overlays still follow handlers',
    server: { ...ALL, capabilities: { tools: {} } },
    legacy: { tools: L, completions: {}, logging: {} },
    modern: { tools: M, completions: {}, logging: {} }
  },
  {
    row: 'capabilities object keeps extra settings',
    server: { ...TOOLS, complete: fn, capabilities: { tools: { custom: 1 }, completions: { mode: 'fast' } } },
    legacy: { tools: { custom: 1, listChanged: true }, completions: { mode: 'fast' }, ...LOG },
    modern: { tools: { custom: 1, listChanged: true }, completions: { mode: 'fast' }, ...LOG }
  },
  {
    row: 'capabilities function of the era',
    server: {
      ...ALL,
      capabilities ({ era }: { era: string }) { return era === 'modern' ? { prompts: {} } : { resources: {} } }
    },
    legacy: { resources: { ...L, subscribe: true }, completions: {}, logging: {} },
    modern: { prompts: M, completions: {}, logging: {} }
  },
  {
    row: 'explicit false wins over handlers',
    server: { ...ALL, capabilities: { tools: false, resources: {}, prompts: false, completions: false, logging: false } },
    legacy: { resources: { ...L, subscribe: true } },
    modern: { resources: { ...M, subscribe: true } }
  },
  {
    row: 'explicit subscribe false wins',
    server: { ...RESOURCES, subscribeResource: fn, capabilities: { resources: { subscribe: false } } },
    legacy: { resources: L, ...LOG },
    modern: { resources: M, ...LOG }
  },
  {
    row: 'explicit listChanged false wins in both eras',
    server: { ...TOOLS, ...PROMPTS, capabilities: { tools: { listChanged: false }, prompts: { listChanged: true } } },
    legacy: { tools: OFF, prompts: L, ...LOG },
    modern: { tools: OFF, prompts: M, ...LOG }
  },
  {
    row: 'experimental kept in both eras; extensions modern only',
    server: { capabilities: { experimental: { 'com.example/x': { a: 1 } }, extensions: { 'com.example/ext': {} } } },
    legacy: { experimental: { 'com.example/x': { a: 1 } }, ...LOG },
    modern: { experimental: { 'com.example/x': { a: 1 } }, extensions: { 'com.example/ext': {} }, ...LOG },
    modernTasks: {
      experimental: { 'com.example/x': { a: 1 } },
      extensions: { 'com.example/ext': {}, [TASKS_EXTENSION]: {} },
      ...LOG
    }
  },
  {
    row: 'a declared tasks extension needs the tasks option',
    server: { capabilities: { extensions: { [TASKS_EXTENSION]: { x: 1 } } } },
    legacy: { ...LOG },
    modern: { ...LOG },
    modernTasks: { extensions: { [TASKS_EXTENSION]: { x: 1 } }, ...LOG }
  }
]

const legacySpec = specValidator('2025-11-25', 'ServerCapabilities')
const modernSpec = specValidator('2026-07-28', 'ServerCapabilities')

t.test('docs/protocol.md, how capabilities are derived, row by row', async (t) => {
  for (const r of rows) {
    t.test(r.row, async (t) => {
      const legacy = buildCapabilities(r.server)
      t.same(legacy, r.legacy, 'legacy (default era)')
      t.same(buildCapabilities(r.server, { era: 'legacy', tasks: true }), r.legacy, 'legacy ignores tasks')
      t.ok(legacySpec(legacy), 'legacy fits the 2025-11-25 ServerCapabilities', { errors: legacySpec.errors })
      t.notOk('extensions' in legacy, 'legacy never has extensions')

      const modern = buildCapabilities(r.server, { era: 'modern' })
      t.same(modern, r.modern, 'modern')
      t.ok(modernSpec(modern), 'modern fits the 2026-07-28 ServerCapabilities', { errors: modernSpec.errors })
      const withTasks = buildCapabilities(r.server, { era: 'modern', tasks: true })
      const expectedTasks = r.modernTasks ?? {
        ...r.modern,
        extensions: { ...(r.modern as { extensions?: object }).extensions, [TASKS_EXTENSION]: {} }
      }
      t.same(withTasks, expectedTasks, 'modern with the tasks extension')
      t.ok(modernSpec(withTasks), 'modern with tasks fits the spec')
      for (const caps of [modern, withTasks]) t.notOk('tasks' in caps, 'modern never has a top-level tasks')
    })
  }
})

t.test('capabilities function gets the era and the module as this', async (t) => {
  const calls: Array<[unknown, unknown]> = []
  const server = {
    ...TOOLS,
    capabilities (this: unknown, ctx: unknown) { calls.push([this, ctx]); return { tools: {} } }
  }
  buildCapabilities(server, { era: 'modern' })
  buildCapabilities(server)
  t.equal(calls.length, 2)
  t.equal(calls[0]?.[0], server)
  t.same(calls.map((c) => c[1]), [{ era: 'modern' }, { era: 'legacy' }])
})

// ---------------------------------------------------------------------------
// Coded errors

function throwsCode (t: Test, f: () => unknown, code: string, message: RegExp, label: string): void {
  let caught: unknown
  try { f() } catch (err) { caught = err }
  t.ok(caught instanceof Error, `${label}: throws`)
  t.equal((caught as { code?: string })?.code, code, `${label}: ${code}`)
  t.match((caught as Error)?.message, message, `${label}: message`)
}

t.test('invalid era', async (t) => {
  for (const era of ['dual', 'Modern', '', null, 1, {}] as unknown[]) {
    throwsCode(t, () => buildCapabilities(TOOLS, { era } as never), 'FST_MCP_INVALID_ERA', /expected one of legacy, modern/, `era ${JSON.stringify(era)}`)
  }
  t.same(buildCapabilities(TOOLS, { era: undefined }), { tools: L, ...LOG }, 'undefined era means legacy')
})

t.test('invalid server', async (t) => {
  for (const server of [null, undefined, 'tools', 42, true, fn] as unknown[]) {
    throwsCode(t, () => buildCapabilities(server as object), 'FST_MCP_INVALID_SERVER', /Invalid server module/, `server ${String(server)}`)
  }
})

t.test('invalid options', async (t) => {
  for (const options of [null, 'modern', 1] as unknown[]) {
    throwsCode(t, () => buildCapabilities(TOOLS, options as never), 'FST_MCP_INVALID_OPTION', /options/, `options ${String(options)}`)
  }
  for (const tasks of ['yes', 1, null] as unknown[]) {
    throwsCode(t, () => buildCapabilities(TOOLS, { era: 'modern', tasks } as never), 'FST_MCP_INVALID_OPTION', /tasks/, `tasks ${String(tasks)}`)
  }
})

t.test('missing handler: names the capability and the handler', async (t) => {
  const cases: Array<[string, object, 'legacy' | 'modern' | 'both', string, string]> = [
    ['listTools without callTool', { listTools: fn }, 'both', 'tools', 'callTool'],
    ['listResources without readResource', { listResources: fn }, 'both', 'resources', 'readResource'],
    ['listPrompts without getPrompt', { listPrompts: fn }, 'both', 'prompts', 'getPrompt'],
    ['declared tools without handlers', { capabilities: { tools: {} } }, 'both', 'tools', 'listTools'],
    ['declared tools, callTool only', { callTool: fn, capabilities: { tools: {} } }, 'both', 'tools', 'listTools'],
    ['declared resources, listResources only', { listResources: fn, capabilities: { resources: {} } }, 'both', 'resources', 'readResource'],
    ['declared prompts without handlers', { capabilities: { prompts: {} } }, 'both', 'prompts', 'listPrompts'],
    ['declared completions without complete', { capabilities: { completions: {} } }, 'both', 'completions', 'complete'],
    ['declared subscribe without subscribeResource', { ...RESOURCES, capabilities: { resources: { subscribe: true } } }, 'legacy', 'resources.subscribe', 'subscribeResource'],
    ['non-function callTool does not count', { listTools: fn, callTool: 'yes' }, 'both', 'tools', 'callTool']
  ]
  for (const [label, server, eras, capability, handler] of cases) {
    const message = new RegExp(`Capability "${capability.replace('.', '\\.')}".*handler "${handler}"`)
    for (const era of ['legacy', 'modern'] as const) {
      if (eras === 'both' || eras === era) {
        throwsCode(t, () => buildCapabilities(server, { era }), 'FST_MCP_MISSING_HANDLER', message, `${label} (${era})`)
      } else {
        t.doesNotThrow(() => buildCapabilities(server, { era }), `${label}: fine in ${era}, which serves it without a handler`)
      }
    }
  }
})

t.test('invalid declarations', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['unknown key tasks', { tasks: {} }, /unknown capability "tasks"/],
    ['unknown key sampling', { sampling: {} }, /unknown capability "sampling"/],
    ['not an object', 5, /must be an object/],
    ['an array', [], /must be an object/],
    ['function returning null', () => null, /must be an object/],
    ['tools: true', { tools: true }, /"tools" must be an object or false/],
    ['experimental not a map', { experimental: { x: 1 } }, /"experimental.x" must be an object/],
    ['cyclic settings', (() => { const a: Record<string, unknown> = {}; a.self = a; return { completions: a } })(), /not JSON data/]
  ]
  for (const [label, capabilities, message] of cases) {
    for (const era of ['legacy', 'modern'] as const) {
      throwsCode(t, () => buildCapabilities({ ...ALL, capabilities }, { era }), 'FST_MCP_INVALID_CAPABILITIES', message, `${label} (${era})`)
    }
  }
})

// ---------------------------------------------------------------------------

t.test('handlers on class instances count; non-functions do not', async (t) => {
  class Base {
    listTools (): void {}
    callTool (): void {}
  }
  class Server extends Base {
    complete (): void {}
    // a property, not a method: never a handler
    listPrompts = 'prompts'
    getPrompt = 42
  }
  const server = new Server()
  t.same(buildCapabilities(server), { tools: L, completions: {}, ...LOG })
  t.same(buildCapabilities(server, { era: 'modern' }), { tools: M, completions: {}, ...LOG })

  const proto = Object.create(null, { listResources: { value: fn }, readResource: { value: fn } })
  t.same(buildCapabilities(Object.create(proto)), { resources: L, ...LOG }, 'null-prototype chain')
  t.same(buildCapabilities({ listTools: null, callTool: undefined, listResources: {}, readResource: [] }), { ...LOG }, 'null/undefined/object/array values ignored')
})

t.test('frozen, deeply', async (t) => {
  const declared = { tools: { custom: { deep: [1] } }, experimental: { 'com.example/x': { a: { b: 1 } } } }
  for (const era of ['legacy', 'modern'] as const) {
    const caps = buildCapabilities({ ...ALL, capabilities: declared }, { era, tasks: true }) as Record<string, unknown>
    const seen: unknown[] = []
    const walk = (v: unknown): void => {
      if (v !== null && typeof v === 'object') {
        seen.push(v)
        for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k])
      }
    }
    walk(caps)
    t.ok(seen.length >= 6, `${era}: walked nested objects`)
    t.ok(seen.every((v) => Object.isFrozen(v)), `${era}: every nested object is frozen`)
    t.throws(() => { (caps.tools as Record<string, unknown>).listChanged = 'x' }, TypeError, `${era}: writes fail`)
    t.throws(() => { caps.prompts = {} }, TypeError, `${era}: adds fail`)
  }
  t.notOk(Object.isFrozen(declared), 'the module\'s declaration is copied, not frozen')
  t.notOk(Object.isFrozen(declared.tools.custom))
  const caps = buildCapabilities({ ...ALL, capabilities: declared })
  declared.tools.custom.deep.push(2)
  t.same((caps as unknown as { tools: { custom: unknown } }).tools.custom, { deep: [1] }, 'later changes to the declaration do not leak in')
})

t.test('same inputs, equal outputs', async (t) => {
  for (const r of rows) {
    for (const options of [{}, { era: 'legacy' }, { era: 'modern' }, { era: 'modern', tasks: true }] as const) {
      const a = buildCapabilities(r.server, options)
      const b = buildCapabilities(r.server, options)
      t.same(a, b, `${r.row} ${JSON.stringify(options)}`)
      t.not(a, b, 'a fresh object each call')
      t.equal(JSON.stringify(a), JSON.stringify(b), 'same key order')
    }
  }
})
