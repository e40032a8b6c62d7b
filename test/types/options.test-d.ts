/**
 * Type-level tests for the option tree: the documented option types (what a
 * user's editor shows) name exactly the keys the checker reads (lib/options.ts
 * spec), group by group, so a key cannot be documented and ignored, or read
 * and undocumented; old flat names do not compile. Checked by `npm run
 * typecheck` (tsc), never run.
 */
import { expectTypeOf } from 'expect-type'
import type {
  CacheHintOptions,
  CacheHintsOptions,
  LimitOptions,
  ListenOptions,
  McpCapabilitiesOptions,
  RequestStateOptions,
  ScaleOptions,
  ServerModule,
  TaskLimits,
  TaskOptions,
  ValidateOptions
} from '../../lib/index.js'
import type { ResolvedOptions } from '../../lib/options.js'

type Resolved = ResolvedOptions

expectTypeOf<keyof Resolved>().toEqualTypeOf<keyof McpCapabilitiesOptions>()
expectTypeOf<keyof Resolved['scale']>().toEqualTypeOf<keyof ScaleOptions>()
expectTypeOf<keyof Resolved['requestState']>().toEqualTypeOf<keyof RequestStateOptions>()
expectTypeOf<keyof Resolved['cacheHints']>().toEqualTypeOf<keyof CacheHintsOptions>()
expectTypeOf<keyof Resolved['cacheHints']['discover']>().toEqualTypeOf<keyof CacheHintOptions>()
expectTypeOf<keyof Resolved['limits']>().toEqualTypeOf<keyof LimitOptions>()
expectTypeOf<keyof Resolved['limits']['listen']>().toEqualTypeOf<keyof ListenOptions>()
expectTypeOf<keyof Resolved['validate']>().toEqualTypeOf<keyof ValidateOptions>()
// The task settings reach the store as its limits, beside the two the endpoint keeps.
expectTypeOf<keyof TaskLimits | Exclude<keyof NonNullable<Resolved['tasks']>, 'limits'>>().toEqualTypeOf<keyof TaskOptions>()
expectTypeOf<McpCapabilitiesOptions['tasks']>().toEqualTypeOf<boolean | TaskOptions | undefined>()

declare const server: ServerModule
const serverInfo = { name: 'x', version: '1' }
const full: McpCapabilitiesOptions = {
  server,
  serverInfo,
  tasks: { maxTasks: 5, owner: (request) => request.ip },
  requestState: { secret: ['a'.repeat(32), Buffer.alloc(32)], ttlMs: 1000 },
  cacheHints: { discover: { ttlMs: 60_000, cacheScope: 'public' }, results: { ttlMs: () => 5 } },
  limits: { bodyLimit: 1024, handlerTimeoutMs: 0, clientRequestTimeoutMs: 1000, maxStreamBufferBytes: 4096, listen: { maxStreams: 1, maxStreamsPerCaller: 1, keepAliveMs: 0 } },
  validate: { results: true, paramHeaders: 'never' }
}
void full

// @ts-expect-error the old flat names are gone: limits.listen.keepAliveMs
const flat: McpCapabilitiesOptions = { server, serverInfo, keepAliveMs: 0 }
// @ts-expect-error the task store is a shared part: scale.taskStore
const store: McpCapabilitiesOptions = { server, serverInfo, tasks: { store: () => { throw new Error('x') } } }
// @ts-expect-error the event bus lives in scale only
const bus: McpCapabilitiesOptions = { server, serverInfo, eventBus: undefined }
void flat
void store
void bus
