/**
 * Type-level tests for buildCapabilities: the result type follows the module
 * type. Checked by `npm run typecheck` (tsc), never run.
 */
import { expectTypeOf } from 'expect-type'
import type { Static } from '@sinclair/typebox'
import { buildCapabilities, type LegacyServerCapabilities, type ModernServerCapabilities } from '../../lib/server-module/capabilities.js'
import type { Era } from '../../lib/protocol/methods.js'
import type { Handler, ServerModule } from '../../lib/server-module/contract.js'
import type * as S from '../../lib/protocol/schemas.js'

const fn = async (): Promise<object> => ({})
const toolsOnly = { listTools: fn, callTool: fn }

// modern, tools only: `tools` with listChanged true, no prompts
const modern = buildCapabilities(toolsOnly, { era: 'modern' })
expectTypeOf(modern.tools).toEqualTypeOf<{ readonly listChanged: true }>()
expectTypeOf(modern).toHaveProperty('tools')
expectTypeOf(modern).not.toHaveProperty('prompts')
expectTypeOf(modern).not.toHaveProperty('completions')
expectTypeOf(modern.logging).toEqualTypeOf<Readonly<Record<string, unknown>>>()
// @ts-expect-error a tools-only module advertises no prompts
modern.prompts // eslint-disable-line @typescript-eslint/no-unused-expressions

// legacy (the default era): listChanged true (the standalone GET stream), logging always (the endpoint answers logging/setLevel)
const legacy = buildCapabilities(toolsOnly)
expectTypeOf(legacy.tools.listChanged).toEqualTypeOf<true>()
expectTypeOf(buildCapabilities(toolsOnly, { era: 'legacy' })).toEqualTypeOf(legacy)
expectTypeOf(legacy.logging).toEqualTypeOf<Readonly<Record<string, unknown>>>()
expectTypeOf(legacy).not.toHaveProperty('extensions')
// @ts-expect-error no prompts in legacy either
legacy.prompts // eslint-disable-line @typescript-eslint/no-unused-expressions

// legacy resources: `subscribe` exactly when subscribeResource is there
const withSubscribe = buildCapabilities({ listResources: fn, readResource: fn, subscribeResource: fn })
expectTypeOf(withSubscribe.resources).toEqualTypeOf<{ readonly listChanged: true, readonly subscribe: true }>()
const withoutSubscribe = buildCapabilities({ listResources: fn, readResource: fn })
expectTypeOf(withoutSubscribe.resources).not.toHaveProperty('subscribe')
expectTypeOf(buildCapabilities({ listResources: fn, readResource: fn }, { era: 'modern' }).resources)
  .toEqualTypeOf<{ readonly listChanged: true, readonly subscribe: true }>()

// handlers present in the type: required keys
const everything = buildCapabilities({ ...toolsOnly, listPrompts: fn, getPrompt: fn, complete: fn, setLogLevel: fn })
expectTypeOf(everything.prompts).toEqualTypeOf<{ readonly listChanged: true }>()
expectTypeOf(everything.completions).toEqualTypeOf<Readonly<Record<string, unknown>>>()
expectTypeOf(everything.logging).toEqualTypeOf<Readonly<Record<string, unknown>>>()

// optional handlers: optional keys
interface MaybeTools {
  listTools?: Handler
  callTool?: Handler
  complete?: Handler
}
declare const maybe: MaybeTools
const optional = buildCapabilities(maybe, { era: 'modern' })
expectTypeOf(optional.tools).toEqualTypeOf<{ readonly listChanged: true } | undefined>()
expectTypeOf(optional.completions).toEqualTypeOf<Readonly<Record<string, unknown>> | undefined>()
expectTypeOf(optional).not.toHaveProperty('prompts')

// non-function properties are not handlers
const notHandlers = buildCapabilities({ listTools: 'tools', callTool: 42 })
expectTypeOf(notHandlers).not.toHaveProperty('tools')

// a module with `capabilities` (or typed as ServerModule) gets the general shape
const declared = buildCapabilities({ ...toolsOnly, capabilities: { tools: {} } }, { era: 'modern' })
expectTypeOf(declared).toEqualTypeOf<ModernServerCapabilities>()
expectTypeOf(buildCapabilities({ ...toolsOnly, capabilities: { tools: {} } })).toEqualTypeOf<LegacyServerCapabilities>()
declare const general: ServerModule
expectTypeOf(buildCapabilities(general)).toEqualTypeOf<LegacyServerCapabilities>()
expectTypeOf(buildCapabilities(general, { era: 'modern' })).toEqualTypeOf<ModernServerCapabilities>()
expectTypeOf(buildCapabilities(general, { era: 'modern' }).prompts).toEqualTypeOf<{ readonly listChanged: boolean } | undefined>()

// an era only known at run time: either shape
declare const era: Era
expectTypeOf(buildCapabilities(general, { era })).toEqualTypeOf<LegacyServerCapabilities | ModernServerCapabilities>()

// options are typed
// @ts-expect-error 'dual' is a plugin era, not a capabilities era
buildCapabilities(toolsOnly, { era: 'dual' })
// @ts-expect-error tasks is a boolean
buildCapabilities(toolsOnly, { era: 'modern', tasks: 'yes' })

// every built type fits the wire schema types of its era
expectTypeOf(modern).toMatchTypeOf<Static<typeof S.ModernServerCapabilities>>()
expectTypeOf(optional).toMatchTypeOf<Static<typeof S.ModernServerCapabilities>>()
expectTypeOf(declared).toMatchTypeOf<Static<typeof S.ModernServerCapabilities>>()
expectTypeOf(legacy).toMatchTypeOf<Static<typeof S.LegacyServerCapabilities>>()
expectTypeOf(withSubscribe).toMatchTypeOf<Static<typeof S.LegacyServerCapabilities>>()
expectTypeOf(everything).toMatchTypeOf<Static<typeof S.LegacyServerCapabilities>>()
expectTypeOf<LegacyServerCapabilities>().toMatchTypeOf<S.LegacyServerCapabilities>()
