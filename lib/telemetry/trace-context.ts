/**
 * The W3C trace context a client sends in a request's `_meta`
 * (`traceparent`, `tracestate`, `baggage`), read through the app's
 * registered propagator, or parsed here when none is registered, so that a
 * client's trace is continued whatever the app configured. What the client
 * sent is hostile: malformed values are ignored.
 */
import type * as Otel from '@opentelemetry/api'

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/
const INVALID_TRACE = '0'.repeat(32)
const INVALID_SPAN = '0'.repeat(16)
/** Longest header value read (W3C allows 512 list members of 256 bytes at most in tracestate; baggage 8192 bytes). */
const MAX_VALUE_LENGTH = 8192

function field (meta: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = meta[key]
  return typeof value === 'string' && value.length <= MAX_VALUE_LENGTH ? value : undefined
}

const getter: Otel.TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => field(carrier, key)
}

/** True when `meta` carries a trace context at all (the common case without one costs one property read). */
export function hasTraceContext (meta: Readonly<Record<string, unknown>>): boolean {
  return typeof meta.traceparent === 'string'
}

/** The context `meta` continues, on top of `base`; `base` itself when `meta` carries nothing usable. */
export function extractTraceContext (api: typeof Otel, base: Otel.Context, meta: Readonly<Record<string, unknown>>): Otel.Context {
  const extracted = api.propagation.extract(base, meta, getter)
  if (api.trace.getSpanContext(extracted) !== undefined && extracted !== base) return extracted
  // No propagator registered (or it read nothing): the W3C formats, parsed here.
  const match = TRACEPARENT.exec(field(meta, 'traceparent') ?? '')
  if (match === null || match[1] === 'ff' || match[2] === INVALID_TRACE || match[3] === INVALID_SPAN) return base
  const state = field(meta, 'tracestate')
  let context = api.trace.setSpanContext(base, {
    traceId: match[2] as string,
    spanId: match[3] as string,
    traceFlags: Number.parseInt(match[4] as string, 16) & 1,
    isRemote: true,
    traceState: state === undefined ? undefined : api.createTraceState(state)
  })
  const baggage = parseBaggage(api, field(meta, 'baggage'))
  if (baggage !== undefined) context = api.propagation.setBaggage(context, baggage)
  return context
}

function parseBaggage (api: typeof Otel, value: string | undefined): Otel.Baggage | undefined {
  if (value === undefined) return undefined
  const entries: Record<string, Otel.BaggageEntry> = {}
  let any = false
  for (const member of value.split(',')) {
    const [pair] = member.split(';')
    const at = pair?.indexOf('=') ?? -1
    if (pair === undefined || at <= 0) continue
    try {
      entries[decodeURIComponent(pair.slice(0, at).trim())] = { value: decodeURIComponent(pair.slice(at + 1).trim()) }
      any = true
    } catch {
      // a malformed percent-encoding: that member is skipped
    }
  }
  return any ? api.propagation.createBaggage(entries) : undefined
}
