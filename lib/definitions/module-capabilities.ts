/**
 * The public `buildCapabilities`: what the plugin advertises for a server
 * module, definition groups included. Groups spread into a module
 * (`{ ...defineTools({ a }), ...defineTools({ b }) }`) sit under symbol keys
 * that only composition reads (compose.ts), so the module is composed first,
 * as the plugin composes it, and the capabilities derived from the result
 * (server-module/capabilities.ts, which cannot import definitions/).
 */
import type { Era } from '../protocol/methods.js'
import type { AnyServerModule } from '../server-module/contract.js'
import { type BuildCapabilitiesOptions, type BuiltCapabilities, buildCapabilities as capabilitiesOfHandlers } from '../server-module/capabilities.js'
import { composeServer } from './compose.js'

/**
 * Returns the frozen capabilities object the plugin advertises for `server`
 * in `era` (see server-module/capabilities.ts for the rules). A name defined
 * twice across its groups fails as it does at registration.
 */
export function buildCapabilities<M extends object, E extends Era = 'legacy'> (
  server: M,
  options: BuildCapabilitiesOptions<E> = {}
): BuiltCapabilities<M, E> {
  // Anything that is not a module object is refused by the checks of capabilitiesOfHandlers.
  const composed = server !== null && typeof server === 'object' && !Array.isArray(server)
    ? composeServer(server as AnyServerModule, undefined).module
    : server
  return capabilitiesOfHandlers(composed as M, options)
}
