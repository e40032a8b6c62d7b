/**
 * The tracing (lib/telemetry/tracing.ts, a chunk of its own in the build),
 * loaded at registration when it can ever trace: the `telemetry` option on
 * (the default) and `@opentelemetry/api` installed, the package's optional
 * peer. Without the API nothing is ever traced, so neither is loaded.
 */
import { installed } from '../common/load-on-first-use.js'
import type { TelemetryOptions } from './telemetry-options.js'
import type { KnownNames, McpTelemetry } from './tracing.js'

/** The endpoint's telemetry; undefined when it cannot trace. `known` is read only when it can. */
export async function loadTelemetry (options: TelemetryOptions | undefined, known: () => KnownNames): Promise<McpTelemetry | undefined> {
  if (options === undefined || !installed('@opentelemetry/api')) return undefined
  const { McpTelemetry } = await import('./tracing.js')
  return await McpTelemetry.load(options, known())
}
