/**
 * Defaults declared below a schema's root properties are filled in by
 * TypeBox's `Value.Default`, which lives in `@sinclair/typebox/value`
 * (lib/typebox/value.ts, a chunk of its own in the build): some thirty
 * modules and tens of milliseconds of start-up (bench/cold-start.ts,
 * docs/performance.md) that most deployments never use. It is imported when
 * the first definition declaring such defaults is made, and the plugin's
 * registration waits for that import (`nestedDefaultsLoading`), so a served
 * call finds it loaded and stays synchronous.
 *
 * A value filled in before the import settled (a definition's handler called
 * directly, in the tick the definition was made) gets a promise of the value,
 * which every caller of a validator accepts (a Standard Schema library may
 * answer one too). Not a synchronous `require` (lib/common/load-on-first-use.ts):
 * that would load the installed TypeBox's CommonJS build, not the plugin's
 * own copy (lib/typebox/index.ts): a TypeRegistry and FormatRegistry of its
 * own, where a union's default would be chosen without the kinds and formats
 * registered with the copy that compiled the schema.
 */
import type { TSchema } from '@sinclair/typebox'

type Fill = (schema: TSchema, value: unknown) => unknown

let fill: Fill | undefined
let loading: Promise<void> | undefined

/** Starts importing `Value.Default` (once); the promise settles when it is loaded. */
export function loadNestedDefaults (): Promise<void> {
  if (loading === undefined) {
    loading = import('../typebox/value.js').then(({ Value }) => { fill = (schema, value) => Value.Default(schema, value) })
    // a failed import is reported to whoever waits for it (registration, a call), not as an unhandled rejection
    loading.catch(() => {})
  }
  return loading
}

/** The import still under way, for the plugin's registration to wait for; undefined when none was started or it is done. */
export function nestedDefaultsLoading (): Promise<void> | undefined {
  return fill === undefined ? loading : undefined
}

/**
 * `Value.Default(schema, value)` (filling `value` in place) once loaded;
 * before, the import's promise, nothing filled: fill in again when it settles.
 */
export function fillNestedDefaults (schema: TSchema, value: unknown): unknown {
  return fill === undefined ? loadNestedDefaults() : fill(schema, value)
}
