/**
 * The `telemetry` option's providers, apart from the tracing code: public
 * declarations that name it must not need `@opentelemetry/api` (an optional peer).
 */

/** Providers given explicitly instead of the API's global ones (e.g. a test's, or one per app). */
export interface TelemetryOptions {
  tracerProvider?: { getTracer (name: string, version?: string): unknown }
  meterProvider?: { getMeter (name: string, version?: string): unknown }
}
