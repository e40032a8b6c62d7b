/**
 * Everything the endpoint computes once at registration: the capability
 * objects of both eras and which eras are served.
 */
import { buildCapabilities, type LegacyServerCapabilities, type ModernServerCapabilities } from '../server-module/capabilities.js'
import type { CapabilityName } from '../protocol/methods.js'
import type { ResolvedOptions } from '../options.js'
import { createResultCheck, type ResultCheck } from '../handler/result-validation.js'
import type { FastifyRequest } from 'fastify'
import type { Outcome } from '../handler/invoke.js'
import { InFlight } from '../handler/in-flight.js'

/** Narrows a list outcome to what this request's caller may use (authorization's `filterLists`). */
export type ListFilter = (method: string, outcome: Outcome, request: FastifyRequest, modern: boolean) => Outcome

export interface EndpointState {
  readonly options: ResolvedOptions
  readonly serveLegacy: boolean
  readonly serveModern: boolean
  readonly capabilities: {
    readonly legacy: LegacyServerCapabilities
    readonly modern: ModernServerCapabilities
  }
  /** Present with `validate.results`: checks handler results against their wire schemas. */
  readonly resultCheck: ResultCheck | undefined
  readonly filterList: ListFilter | undefined
  /** Handlers still running: timed out after `limits.handlerTimeoutMs`, stopped and answered on close. */
  readonly inFlight: InFlight
}

export function createEndpointState (options: ResolvedOptions, filterList?: ListFilter): EndpointState {
  // Both shapes are built (and checked) whatever the era, so a module that
  // could not be served in one era fails registration rather than a request.
  const legacy = buildCapabilities(options.server, { era: 'legacy' }) as LegacyServerCapabilities
  const modern = buildCapabilities(options.server, { era: 'modern', tasks: options.tasks !== undefined }) as ModernServerCapabilities
  return Object.freeze({
    options,
    serveLegacy: options.era !== 'modern',
    serveModern: options.era !== 'legacy',
    capabilities: Object.freeze({ legacy, modern }),
    resultCheck: options.validate.results ? createResultCheck() : undefined,
    filterList,
    inFlight: new InFlight(options.limits.handlerTimeoutMs)
  })
}

export function isAdvertised (capabilities: LegacyServerCapabilities | ModernServerCapabilities, capability: CapabilityName): boolean {
  if (capability === 'resources.subscribe') return capabilities.resources?.subscribe === true
  return capabilities[capability] !== undefined
}
