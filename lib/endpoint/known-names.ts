/**
 * The names this endpoint knows, for the telemetry (lib/telemetry/tracing.ts):
 * the protocol's methods and versions, and the tools and prompts defined in
 * the catalogues (read at each request, so runtime additions and removals
 * count; a name served only by a hand-written handler is not known).
 */
import type { Composition } from '../definitions/compose.js'
import { METHODS } from '../protocol/methods.js'
import { isLegacyVersion, isModernVersion } from '../protocol/versions.js'
import type { KnownNames } from '../telemetry/tracing.js'

export function knownNames (composition: Pick<Composition, 'tools' | 'prompts'>): KnownNames {
  const { tools, prompts } = composition
  return Object.freeze({
    method: (method: string) => METHODS[method] !== undefined,
    version: (version: string) => isModernVersion(version) || isLegacyVersion(version),
    tool: (name: string) => tools?.has(name) === true,
    prompt: (name: string) => prompts?.has(name) === true
  })
}
