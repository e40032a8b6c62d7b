/**
 * Validators for Standard Schemas (standardschema.dev): zod 4, valibot,
 * arktype and any other library implementing `~standard.validate`. The
 * library validates (and may transform: the handler gets its output); its
 * issues become the same "path: problem" lines as the JSON Schema validators'.
 */
import type { StandardJsonSchema } from './schema-types.js'
import { isThenable } from '../common/maybe-promise.js'
import { clip } from '../protocol/describe.js'
import { Invalid, type SchemaUse, type Validator, withinStack } from './validation.js'

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
  const seen = new Set<string>()
  const lines: string[] = []
  for (const issue of issues) {
    const path = pathOf(issue, root)
    if (seen.has(path)) continue // the first complaint per path says it best
    seen.add(path)
    const message = String(issue.message)
    // some libraries (arktype) start the message with the path already
    lines.push(`${path}: ${message.startsWith(`${path} `) ? message.slice(path.length + 1) : message}`)
  }
  return new Invalid(lines.length > 0 ? lines : [`${root}: invalid`])
}

/** `use.root` names the value as a whole in problem lines (`arguments`, ...). */
export function standardValidator (schema: StandardJsonSchema, use: SchemaUse): Validator {
  const standard = schema['~standard']
  const root = use.root
  return {
    validate (value) {
      const result = withinStack(use, () => standard.validate(value))
      if (result instanceof Invalid) return result
      if (!isThenable(result)) return outcome(result, root)
      // A library may retry a check that threw asynchronously (zod does): an overflow there is sorted the same way.
      return Promise.resolve(result).then((settled) => outcome(settled, root), (err: unknown) => withinStack(use, () => { throw err }))
    }
  }
}
