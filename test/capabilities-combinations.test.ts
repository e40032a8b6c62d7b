/**
 * Every combination of the handlers in lib/protocol/methods.ts (2^11), in both eras,
 * with the tasks extension on and off, each as own methods, inherited methods
 * and with non-function decoys for the absent ones. The expectation is derived
 * here from docs/protocol.md ("How capabilities are derived") and REQUIRED_HANDLERS, not from the code
 * under test: either buildCapabilities throws FST_MCP_MISSING_HANDLER exactly
 * when a turned-on capability lacks a required handler, or its result is the
 * expected object, validates against the spec's ServerCapabilities of its era,
 * advertises nothing without its handlers and leaves no complete handler set
 * unadvertised.
 */
import t from 'tap'
import { buildCapabilities, TASKS_EXTENSION } from '../lib/server-module/capabilities.js'
import { type CapabilityName, type Era, type HandlerName, MODULE_METHODS, REQUIRED_HANDLERS } from '../lib/protocol/methods.js'
import { specValidator } from './helpers/spec-schema.js'

const HANDLERS: readonly HandlerName[] = [
  'listTools', 'callTool', 'listResources', 'readResource', 'listResourceTemplates',
  'listPrompts', 'getPrompt', 'complete', 'subscribeResource', 'unsubscribeResource', 'setLogLevel'
]

/** The handler whose presence turns each capability on (docs/protocol.md, "How capabilities are derived"); `logging` is on in both eras whatever the handlers. */
// The skills extension's derivation is tested in test/skills/advertisement.test.ts.
const TRIGGER: Record<Exclude<CapabilityName, 'logging' | 'skills' | 'skills.directoryRead'>, HandlerName> = {
  tools: 'listTools',
  resources: 'listResources',
  prompts: 'listPrompts',
  completions: 'complete',
  'resources.subscribe': 'subscribeResource'
}

const specOf: Record<Era, ReturnType<typeof specValidator>> = {
  legacy: specValidator('2025-11-25', 'ServerCapabilities'),
  modern: specValidator('2026-07-28', 'ServerCapabilities')
}

type Variant = 'own' | 'inherited' | 'decoys'

function makeServer (present: ReadonlySet<HandlerName>, variant: Variant): object {
  const handlers: Record<string, unknown> = {}
  for (const name of present) handlers[name] = function handler () {}
  if (variant === 'inherited') return Object.create(Object.create(handlers))
  if (variant === 'decoys') {
    const decoys = ['yes', 1, true, {}, [], null]
    HANDLERS.filter((h) => !present.has(h)).forEach((h, i) => { handlers[h] = decoys[i % decoys.length] })
  }
  return handlers
}

/** Which capabilities this handler set turns on in `era`, before the handler check. */
function turnedOn (present: ReadonlySet<HandlerName>, era: Era): Set<CapabilityName> {
  const on = new Set<CapabilityName>()
  for (const cap of ['tools', 'resources', 'prompts', 'completions'] as const) {
    if (present.has(TRIGGER[cap])) on.add(cap)
  }
  on.add('logging')
  if (era === 'legacy') {
    if (on.has('resources') && present.has(TRIGGER['resources.subscribe'])) on.add('resources.subscribe')
  }
  return on
}

function missingPairs (present: ReadonlySet<HandlerName>, era: Era): Array<[CapabilityName, HandlerName]> {
  const out: Array<[CapabilityName, HandlerName]> = []
  for (const cap of turnedOn(present, era)) {
    for (const h of REQUIRED_HANDLERS[cap]) if (!present.has(h)) out.push([cap, h])
  }
  return out
}

function expected (present: ReadonlySet<HandlerName>, era: Era, tasks: boolean): Record<string, unknown> {
  const on = turnedOn(present, era)
  const modern = era === 'modern'
  const caps: Record<string, unknown> = {}
  // Both eras push list changes (legacy: the standalone GET stream).
  if (on.has('tools')) caps.tools = { listChanged: true }
  if (on.has('resources')) {
    caps.resources = modern || on.has('resources.subscribe')
      ? { listChanged: true, subscribe: true }
      : { listChanged: true }
  }
  if (on.has('prompts')) caps.prompts = { listChanged: true }
  if (on.has('completions')) caps.completions = {}
  if (on.has('logging')) caps.logging = {}
  if (modern && tasks) caps.extensions = { [TASKS_EXTENSION]: {} }
  return caps
}

/** The capability a handler's methods need advertised, in an era where they exist. */
function capabilityOf (handler: HandlerName, era: Era): CapabilityName | undefined {
  const entry = MODULE_METHODS.map(([, e]) => e).find((e) => e.handler === handler && e.eras.includes(era))
  return entry?.capability
}

function isAdvertised (caps: Record<string, any>, cap: CapabilityName): boolean {
  if (cap === 'resources.subscribe') return caps.resources?.subscribe === true
  return caps[cap] !== undefined
}

t.test('the test\'s own tables agree with lib/protocol/methods.ts', async (t) => {
  // The skills extension's handlers are combined in test/skills/advertisement.test.ts.
  const fromRoutes = new Set(MODULE_METHODS.filter(([, e]) => !e.capability.startsWith('skills')).map(([, e]) => e.handler))
  t.same([...fromRoutes].sort(), [...HANDLERS].sort(), 'every routed handler is combined')
  t.same(REQUIRED_HANDLERS.logging, [], 'logging needs no handler: the endpoint answers logging/setLevel')
  for (const [cap, trigger] of Object.entries(TRIGGER) as Array<[Exclude<CapabilityName, 'logging'>, HandlerName]>) {
    t.ok(REQUIRED_HANDLERS[cap].includes(trigger), `${cap} requires its trigger ${trigger}`)
  }
})

t.test('every combination of handlers x era x tasks x shape', async (t) => {
  const counts = { threw: 0, built: 0 }
  const failures: string[] = []
  const fail = (msg: string): void => { if (failures.length < 20) failures.push(msg) }

  for (let mask = 0; mask < 1 << HANDLERS.length; mask++) {
    const present = new Set(HANDLERS.filter((_, i) => (mask & (1 << i)) !== 0))
    for (const era of ['legacy', 'modern'] as const) {
      const missing = missingPairs(present, era)
      for (const tasks of [false, true]) {
        for (const variant of ['own', 'inherited', 'decoys'] as const) {
          const label = `[${[...present].join(',')}] ${era} tasks=${tasks} ${variant}`
          let caps: Record<string, any> | undefined
          let error: any
          try {
            caps = buildCapabilities(makeServer(present, variant), { era, tasks }) as Record<string, any>
          } catch (err) {
            error = err
          }

          if (missing.length > 0) {
            counts.threw++
            if (error?.code !== 'FST_MCP_MISSING_HANDLER') {
              fail(`${label}: expected FST_MCP_MISSING_HANDLER, got ${error?.code ?? JSON.stringify(caps)}`)
              continue
            }
            const named = missing.some(([c, h]) => error.message.includes(`"${c}"`) && error.message.includes(`"${h}"`))
            if (!named) fail(`${label}: message "${error.message}" names none of ${JSON.stringify(missing)}`)
            continue
          }

          counts.built++
          if (caps === undefined) {
            fail(`${label}: threw ${error?.code} ${error?.message}`)
            continue
          }
          if (!specOf[era](caps)) fail(`${label}: not a ${era} ServerCapabilities: ${JSON.stringify(specOf[era].errors)}`)
          const want = expected(present, era, tasks)
          if (!sameJson(caps, want)) fail(`${label}: got ${JSON.stringify(caps)}, expected ${JSON.stringify(want)}`)
          // advertised -> served: every handler it needs is there (legacy;
          // modern answers logging and subscriptions without a handler)
          for (const cap of Object.keys(REQUIRED_HANDLERS) as CapabilityName[]) {
            const needsHandlers = era === 'legacy' || (cap !== 'logging' && cap !== 'resources.subscribe')
            if (needsHandlers && isAdvertised(caps, cap)) {
              const lacking = REQUIRED_HANDLERS[cap].filter((h) => !present.has(h))
              if (lacking.length > 0) fail(`${label}: advertises ${cap} without ${lacking.join(', ')}`)
            }
          }
          // served -> advertised: a complete handler set is never hidden
          for (const handler of present) {
            const cap = capabilityOf(handler, era)
            if (cap === undefined) continue
            const complete = REQUIRED_HANDLERS[cap].every((h) => present.has(h)) &&
              (cap !== 'resources.subscribe' || REQUIRED_HANDLERS.resources.every((h) => present.has(h)))
            if (complete && !isAdvertised(caps, cap)) fail(`${label}: serves ${handler} but does not advertise ${cap}`)
          }
          if (era === 'legacy' && ('extensions' in caps || 'tasks' in caps)) fail(`${label}: legacy with extensions/tasks`)
          if (era === 'modern' && 'tasks' in caps) fail(`${label}: modern with top-level tasks`)
          if (!Object.isFrozen(caps)) fail(`${label}: not frozen`)
        }
      }
    }
  }

  t.same(failures, [], 'no combination breaks the rules')
  t.equal(counts.threw + counts.built, (1 << HANDLERS.length) * 2 * 2 * 3, 'all combinations ran')
  t.ok(counts.threw > 0 && counts.built > 0, `both outcomes occur (${counts.threw} threw, ${counts.built} built)`)
})

function sameJson (a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
}

function sortKeys (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]))
  }
  return v
}
