/**
 * A skill's `SKILL.md` frontmatter: the YAML block it must begin with,
 * parsed with the `yaml` package (YAML 1.2 core schema, so no dates or
 * other non-JSON values), bounded in size and in alias expansion so a
 * hostile file cannot blow up time or memory, and checked as the Agent
 * Skills format asks: `name` (the skill directory's last segment) and
 * `description`. The parsed object is what `skills/list` and `skills/get`
 * carry as `frontmatter`, every field the author wrote passing through.
 */
import { loadOnFirstUse } from '../common/load-on-first-use.js'
import { isPlainObject } from './plain.js'

/** yaml is loaded with the first skill, not with the package. */
const yaml = loadOnFirstUse<typeof import('yaml')>('yaml')

/** Longest frontmatter block read (the Agent Skills format keeps it to a few fields). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024
/** Aliases a frontmatter block may expand (the `yaml` package's bound on "billion laughs" documents). */
const MAX_ALIAS_COUNT = 64
/** Agent Skills names: 1 to 64 lowercase letters, digits and single hyphens, neither first nor last. */
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const MAX_NAME_LENGTH = 64
const MAX_DESCRIPTION_LENGTH = 1024
const OPENING = /^---[ \t]*\r?\n/
const CLOSING = /^---[ \t]*\r?$/m

export interface SkillFrontmatter {
  name: string
  description: string
  [field: string]: unknown
}

/** Why `text` is not a skill name, or undefined when it is one. */
export function skillNameProblem (text: string): string | undefined {
  if (text.length === 0 || text.length > MAX_NAME_LENGTH) return `must be 1 to ${MAX_NAME_LENGTH} characters`
  if (!NAME.test(text)) return 'may hold only lowercase letters, digits and single hyphens, neither first nor last'
  return undefined
}

/** Why `frontmatter` is not a skill's frontmatter named `expectedName`, or undefined. */
export function frontmatterProblem (frontmatter: Record<string, unknown>, expectedName: string): string | undefined {
  const { name, description } = frontmatter
  if (typeof name !== 'string') return 'the frontmatter has no "name" string'
  const nameProblem = skillNameProblem(name)
  if (nameProblem !== undefined) return `the frontmatter "name" ${JSON.stringify(name.slice(0, 80))} ${nameProblem}`
  if (name !== expectedName) return `the frontmatter "name" is "${name}", but the skill's directory is "${expectedName}" (they must be equal)`
  if (typeof description !== 'string' || description.trim().length === 0) return 'the frontmatter has no non-empty "description" string'
  if (description.length > MAX_DESCRIPTION_LENGTH) return `the frontmatter "description" is longer than ${MAX_DESCRIPTION_LENGTH} characters`
  return undefined
}

export type FrontmatterParse = { ok: true, frontmatter: SkillFrontmatter } | { ok: false, problem: string }

/**
 * The frontmatter of a `SKILL.md` whose text is `text`, as a JSON object,
 * checked for `expectedName` (the last segment of the skill's path).
 */
export function parseFrontmatter (text: string, expectedName: string): FrontmatterParse {
  const opening = OPENING.exec(text)
  if (opening === null) return { ok: false, problem: 'SKILL.md must begin with YAML frontmatter (a first line "---")' }
  const rest = text.slice(opening[0].length)
  // Only the first MAX_FRONTMATTER_BYTES are searched for the closing line: a huge block is refused, never scanned whole.
  const window = rest.slice(0, MAX_FRONTMATTER_BYTES + 8)
  const closing = CLOSING.exec(window)
  if (closing === null) {
    return { ok: false, problem: window.length > MAX_FRONTMATTER_BYTES ? `the frontmatter is longer than ${MAX_FRONTMATTER_BYTES} bytes` : 'the frontmatter is not closed by a line "---"' }
  }
  const yamlText = window.slice(0, closing.index)
  if (Buffer.byteLength(yamlText) > MAX_FRONTMATTER_BYTES) return { ok: false, problem: `the frontmatter is longer than ${MAX_FRONTMATTER_BYTES} bytes` }
  let value: unknown
  try {
    const document = yaml().parseDocument(yamlText, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false })
    const error = document.errors[0]
    if (error !== undefined) return { ok: false, problem: `the frontmatter is not valid YAML: ${error.message.split('\n')[0] as string}` }
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (err) {
    // The yaml package throws for too many aliases (a "billion laughs" document) and the like.
    return { ok: false, problem: `the frontmatter could not be read: ${err instanceof Error ? err.message.split('\n')[0] as string : String(err)}` }
  }
  if (!isPlainObject(value)) return { ok: false, problem: 'the frontmatter must be a YAML mapping (name: ..., description: ...)' }
  const json = jsonCopy(value)
  if (json === undefined) return { ok: false, problem: 'the frontmatter holds values JSON cannot carry' }
  const problem = frontmatterProblem(json, expectedName)
  return problem === undefined ? { ok: true, frontmatter: json as SkillFrontmatter } : { ok: false, problem }
}

/** `frontmatter` as the text of a `SKILL.md` opening, followed by `body`. */
export function renderSkillMd (frontmatter: SkillFrontmatter, body: string): string {
  return '---\n' + yaml().stringify(frontmatter, { version: '1.2', aliasDuplicateObjects: false }) + '---\n\n' + body
}

/** A JSON copy (plain objects, arrays, finite numbers, strings, booleans, null); undefined when something else is inside. */
function jsonCopy (value: unknown): Record<string, unknown> | undefined {
  try {
    const text = JSON.stringify(value)
    const copy: unknown = JSON.parse(text)
    return sameJson(value, copy) ? copy as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

/** Deep equality of JSON values (what a host's field-by-field comparison of frontmatter checks). */
export function sameJson (a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  if (Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}
