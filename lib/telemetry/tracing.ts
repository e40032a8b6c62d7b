/**
 * Tracing and metrics by the OpenTelemetry semantic conventions for MCP
 * (the OpenTelemetry semantic conventions for MCP, docs/tracing.md): one SERVER span per MCP request, named
 * `{mcp.method.name} {target}` (the tool or prompt name; a resource URI
 * stays an attribute, as the conventions advise against high-cardinality
 * names), and the `mcp.server.operation.duration` histogram in seconds.
 *
 * What a client sends is hostile: a span name is made only of names the
 * server knows (a method of the protocol, a defined tool or prompt; the bare
 * method otherwise), every value the client chose is clipped before it
 * becomes a span attribute, and a metric label takes its value from a
 * bounded set (known methods, else `_OTHER`; defined names and supported
 * versions, else absent), so neither a queued span nor the metric series
 * grow with what clients send.
 *
 * `@opentelemetry/api` is an optional peer dependency, loaded once at
 * registration. Each request asks the API whether a tracer or meter
 * provider is registered (two reads of its globals): with neither, nothing
 * else runs.
 */
import type * as Otel from '@opentelemetry/api'
import { extractTraceContext, hasTraceContext } from './trace-context.js'
import type { TelemetryOptions } from './telemetry-options.js'
import { installed, loadOnFirstUse } from '../common/load-on-first-use.js'

const SCOPE_NAME = 'fastify-mcp-capabilities'
const SCOPE_VERSION = '0.1.0'
/** The conventions' advised buckets for `mcp.server.operation.duration`, in seconds. */
const DURATION_BUCKETS = Object.freeze([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
/** The conventions' value for a method outside the known set (as `http.request.method` has it). */
export const OTHER = '_OTHER'
/** A tool name has at most 128 characters by the specification; prompt names get the same bound. */
export const MAX_NAME_CHARS = 128
/** Longest resource URI kept on a span: enough to tell URIs apart, not a copy of whatever was sent. */
export const MAX_URI_CHARS = 1024
/** Longest request id and protocol version kept on a span (a version is 10 characters). */
export const MAX_TOKEN_CHARS = 128

/** What the server knows by name: the only values span names and metric labels are made of. */
export interface KnownNames {
  method (method: string): boolean
  version (version: string): boolean
  tool (name: string): boolean
  prompt (name: string): boolean
}

/**
 * `value` cut to `max` UTF-16 units, without leaving half a surrogate pair at
 * the end. The cut is copied: V8 keeps a slice as a view of the whole string,
 * which a queued span would then hold.
 */
export function clip (value: string, max: number): string {
  if (value.length <= max) return value
  const code = value.charCodeAt(max - 1)
  const cut = value.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
  return Buffer.from(cut, 'utf16le').toString('utf16le')
}

/** `name` when the server knows it (a name longer than any it could know is not even looked up). */
function knownName (name: string | undefined, known: (name: string) => boolean): string | undefined {
  return name !== undefined && name.length <= MAX_NAME_CHARS && known(name) ? name : undefined
}

/** What one request's span and measurement start from. */
export interface RequestTraceStart {
  readonly method: string
  /** Tool or prompt name (in the span name), or resource URI (an attribute only). */
  readonly toolName?: string
  readonly promptName?: string
  readonly resourceUri?: string
  readonly id: string | number
  readonly protocolVersion: string | undefined
  readonly meta: Readonly<Record<string, unknown>>
}

/** One request being traced or measured. */
export interface RequestTrace {
  /** The context the request is served in (its span's); undefined when only measured. */
  readonly context: Otel.Context | undefined
  end (errorType: string | undefined): void
}

/**
 * Where `@opentelemetry/api` 1.x keeps what is registered with it (its
 * internal/global-utils): present once an SDK, or anything, registers a
 * provider, context manager or propagator. Until then no request can be
 * traced, so the API (some 40 modules) is not loaded for nothing.
 */
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1')
const otelApi = loadOnFirstUse<typeof Otel>('@opentelemetry/api')

function otelRegistered (): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBALS] !== undefined
}

export class McpTelemetry {
  #api: typeof Otel | undefined
  /** The API failed to load when something was registered: nothing is traced (a request is never failed for it). */
  #unavailable = false
  readonly #options: TelemetryOptions
  readonly #known: KnownNames
  #tracerSource: unknown = undefined
  #tracer: Otel.Tracer | undefined = undefined
  #meterSource: unknown = undefined
  #histogram: Otel.Histogram | undefined = undefined
  #noopTracerProvider: Otel.TracerProvider | undefined
  #noopMeter: Otel.Meter | undefined

  /** `api` undefined: loaded once something is registered with the API (`#ready`). */
  constructor (api: typeof Otel | undefined, options: TelemetryOptions, known: KnownNames) {
    this.#options = options
    this.#known = known
    if (api !== undefined) this.#attach(api)
  }

  #attach (api: typeof Otel): void {
    this.#api = api
    // A fresh proxy's delegate is the API's no-op provider: what "none registered" looks like.
    this.#noopTracerProvider = new api.ProxyTracerProvider().getDelegate()
    this.#noopMeter = api.createNoopMeter()
  }

  /** Whether the API is loaded, loading it (synchronously, once) when something was registered since. */
  #ready (): boolean {
    if (this.#api !== undefined) return true
    if (this.#unavailable || !otelRegistered()) return false
    try {
      this.#attach(otelApi())
    } catch {
      this.#unavailable = true
      return false
    }
    return true
  }

  /**
   * With the `telemetry` option, `@opentelemetry/api` when installed;
   * undefined without either. Loaded now when providers are given or
   * already registered, else when one is registered (see `OTEL_GLOBALS`).
   */
  static async load (options: TelemetryOptions | undefined, known: KnownNames): Promise<McpTelemetry | undefined> {
    if (options === undefined) return undefined
    const given = options.tracerProvider !== undefined || options.meterProvider !== undefined
    if (!given && !otelRegistered()) return installed('@opentelemetry/api') ? new McpTelemetry(undefined, options, known) : undefined
    let api: typeof Otel
    try {
      api = await import('@opentelemetry/api')
    } catch {
      return undefined
    }
    return new McpTelemetry(api, options, known)
  }

  #currentTracer (): Otel.Tracer | undefined {
    const api = this.#api as typeof Otel
    let provider = (this.#options.tracerProvider as Otel.TracerProvider | undefined) ?? api.trace.getTracerProvider()
    if (provider instanceof api.ProxyTracerProvider) provider = provider.getDelegate()
    if (provider !== this.#tracerSource) {
      this.#tracerSource = provider
      this.#tracer = provider === this.#noopTracerProvider ? undefined : provider.getTracer(SCOPE_NAME, SCOPE_VERSION)
    }
    return this.#tracer
  }

  #currentHistogram (): Otel.Histogram | undefined {
    const provider = (this.#options.meterProvider as Otel.MeterProvider | undefined) ?? (this.#api as typeof Otel).metrics.getMeterProvider()
    if (provider !== this.#meterSource) {
      this.#meterSource = provider
      const meter = provider.getMeter(SCOPE_NAME, SCOPE_VERSION)
      this.#histogram = meter === this.#noopMeter
        ? undefined
        : meter.createHistogram('mcp.server.operation.duration', {
          description: 'MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.',
          unit: 's',
          advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] }
        })
    }
    return this.#histogram
  }

  /** Whether a tracer or meter provider is registered now (checked before a request's details are gathered). */
  get active (): boolean {
    if (!this.#ready()) return false
    return this.#currentTracer() !== undefined || this.#currentHistogram() !== undefined
  }

  /** Starts tracing one request; undefined when neither a tracer nor a meter provider is registered. */
  start (info: RequestTraceStart): RequestTrace | undefined {
    if (!this.#ready()) return undefined
    const tracer = this.#currentTracer()
    const histogram = this.#currentHistogram()
    if (tracer === undefined && histogram === undefined) return undefined
    const api = this.#api as typeof Otel
    const started = performance.now()
    const known = this.#known
    const method = known.method(info.method) ? info.method : OTHER
    const tool = knownName(info.toolName, known.tool)
    const prompt = knownName(info.promptName, known.prompt)
    // Metric labels: bounded sets only (every distinct value is a series kept for the process's life).
    const attributes: Otel.Attributes = { 'mcp.method.name': method }
    if (tool !== undefined) attributes['gen_ai.tool.name'] = tool
    if (method === 'tools/call') attributes['gen_ai.operation.name'] = 'execute_tool'
    if (prompt !== undefined) attributes['gen_ai.prompt.name'] = prompt
    if (info.protocolVersion !== undefined && known.version(info.protocolVersion)) attributes['mcp.protocol.version'] = info.protocolVersion
    attributes['network.protocol.name'] = 'http'
    attributes['network.transport'] = 'tcp'

    let span: Otel.Span | undefined
    let context: Otel.Context | undefined
    if (tracer !== undefined) {
      const active = api.context.active()
      const parent = hasTraceContext(info.meta) ? extractTraceContext(api, active, info.meta) : active
      const target = tool ?? prompt
      // Span attributes may say what the client sent, clipped: an unknown name still helps whoever reads the trace.
      const spanAttributes: Otel.Attributes = { ...attributes, 'jsonrpc.request.id': clip(String(info.id), MAX_TOKEN_CHARS) }
      if (info.toolName !== undefined) spanAttributes['gen_ai.tool.name'] = clip(info.toolName, MAX_NAME_CHARS)
      if (info.promptName !== undefined) spanAttributes['gen_ai.prompt.name'] = clip(info.promptName, MAX_NAME_CHARS)
      if (info.protocolVersion !== undefined) spanAttributes['mcp.protocol.version'] = clip(info.protocolVersion, MAX_TOKEN_CHARS)
      if (info.resourceUri !== undefined) spanAttributes['mcp.resource.uri'] = clip(info.resourceUri, MAX_URI_CHARS)
      span = tracer.startSpan(target === undefined ? method : `${method} ${target}`, { kind: api.SpanKind.SERVER, attributes: spanAttributes }, parent)
      context = api.trace.setSpan(parent, span)
    }
    return {
      context,
      end (errorType) {
        if (errorType !== undefined) attributes['error.type'] = errorType
        if (span !== undefined) {
          if (errorType !== undefined) {
            span.setAttribute('error.type', errorType)
            if (errorType !== 'tool_error') span.setAttribute('rpc.response.status_code', errorType)
            span.setStatus({ code: api.SpanStatusCode.ERROR })
          }
          span.end()
        }
        if (histogram !== undefined) {
          if (errorType !== undefined && errorType !== 'tool_error') attributes['rpc.response.status_code'] = errorType
          histogram.record((performance.now() - started) / 1000, attributes)
        }
      }
    }
  }

  /** Runs `fn` in `trace`'s context, so the handler's own spans are children of the request's. */
  within<T> (trace: RequestTrace, fn: () => T): T {
    return trace.context === undefined ? fn() : (this.#api as typeof Otel).context.with(trace.context, fn)
  }
}
