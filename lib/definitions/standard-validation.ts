/**
 * Validators for Standard Schemas (standardschema.dev): zod 4, valibot,
 * arktype and any other library implementing `~standard.validate`. The
 * library validates (and may transform: the handler gets its output); its
 * issues become the same "path: problem" lines as the JSON Schema validators'.
 *
 * A library's `validate` collects every issue and cannot be stopped part
 * way (zod, valibot and arktype spend microseconds on each: half a million
 * wrong items stall the process for seconds), so a client's arguments are
 * bounded in values before it runs (`limits.maxArgumentValues`). arktype's
 * `allows` answers without collecting anything: a failing value too large
 * to list the problems of is refused on its word alone.
 */
import type { StandardJsonSchema } from './schema-types.js'
import { isThenable } from '../common/maybe-promise.js'
import { clip } from '../protocol/describe.js'
import { detailedCount, Invalid, ProblemList, type SchemaUse, unlocated, type Validator, withinStack } from './validation.js'
import { valueCountWithin } from './value-count.js'

/** The default of `limits.maxArgumentValues`. */
export const DEFAULT_MAX_ARGUMENT_VALUES = 4096

interface Issue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

interface Result {
  readonly value?: unknown
  readonly issues?: readonly Issue[] | undefined
}

function pathOf (issue: Issue, root: string): string {
  let out = ''
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    if (typeof key === 'number' || (typeof key === 'string' && /^\d+$/.test(key))) out += `[${String(key)}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  // the path quotes the client's keys: a few dozen characters of it
  return out === '' ? root : clip(out)
}

function outcome (result: unknown, root: string): unknown {
  const { value, issues } = (result ?? {}) as Result
  if (issues === undefined || issues === null) return value
  const list = new ProblemList()
  for (const issue of issues) {
    const path = pathOf(issue, root)
    list.add(path, () => {
      const message = String(issue.message)
      // some libraries (arktype) start the message with the path already
      return `${path}: ${message.startsWith(`${path} `) ? message.slice(path.length + 1) : message}`
    })
  }
  return list.invalid(false, `${root}: invalid`)
}

/** A library's check that answers only yes or no, without collecting issues (arktype's `allows`). */
function quickCheck (schema: StandardJsonSchema): ((value: unknown) => boolean) | undefined {
  const allows = (schema as { allows?: unknown }).allows
  return schema['~standard'].vendor === 'arktype' && typeof allows === 'function' ? (value) => allows.call(schema, value) === true : undefined
}

/** `use.root` names the value as a whole in problem lines (`arguments`, ...). */
export function standardValidator (schema: StandardJsonSchema, use: SchemaUse): Validator {
  const standard = schema['~standard']
  const root = use.root
  const quick = quickCheck(schema)
  function run (value: unknown): unknown {
    const result = withinStack(use, () => standard.validate(value))
    if (result instanceof Invalid) return result
    if (!isThenable(result)) return outcome(result, root)
    // A library may retry a check that threw asynchronously (zod does): an overflow there is sorted the same way.
    return Promise.resolve(result).then((settled) => outcome(settled, root), (err: unknown) => withinStack(use, () => { throw err }))
  }
  if (use.direction === 'output') return { validate: run }
  return {
    validate (value, bounds, bodyBytes) {
      const max = bounds?.maxValues ?? DEFAULT_MAX_ARGUMENT_VALUES
      const count = valueCountWithin(value, max)
      if (count === undefined) return new Invalid([`${root}: more than ${max} values, more than this server accepts`])
      if (quick !== undefined && !detailedCount(count, bodyBytes)) {
        const allowed = withinStack(use, () => quick(value))
        if (allowed instanceof Invalid) return allowed
        if (!allowed) return unlocated(root, bodyBytes)
      }
      return run(value)
    }
  }
}
