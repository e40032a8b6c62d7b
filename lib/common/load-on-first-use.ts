/**
 * CommonJS dependencies only some deployments use (Ajv's 2020-12 build for
 * plain JSON Schemas, yaml for skills, light-my-request for route tools,
 * `@opentelemetry/api` once a provider is registered),
 * loaded synchronously the first time they are needed rather than when the
 * package is imported: each costs tens of milliseconds of start-up, paid on
 * every new process (bench/cold-start.ts, docs/performance.md). They are
 * needed at definition or registration time, so loading them then puts no
 * cost on a first request.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** A getter that loads `specifier` on its first call and returns the same module ever after. */
export function loadOnFirstUse<T> (specifier: string): () => T {
  let loaded: T | undefined
  return () => {
    loaded ??= require(specifier) as T
    return loaded
  }
}

/** Whether `specifier` resolves from here (an optional peer dependency is installed), without loading it. */
export function installed (specifier: string): boolean {
  try {
    require.resolve(specifier)
    return true
  } catch {
    return false
  }
}
