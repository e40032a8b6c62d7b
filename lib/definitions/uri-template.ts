/**
 * RFC 6570 level 1 URI templates (`notes://note/{id}`): simple string
 * variables, matched against a URI and typed from the template's text.
 * Operators and modifiers (`{+path}`, `{id*}`, `{a,b}`) are refused when the
 * resource is defined, so what matches is always what the template says.
 *
 * URIs come from clients (a legacy request has no header bound, so ~1 MB is
 * possible), so matching takes time linear in the URI. A variable is one or
 * more characters other than `/`, `?` and `#`; where a URI splits more than
 * one way (`{a}.{b}` on `x.y.z`) the earlier variable takes the most, as a
 * backtracking regular expression would, but nothing backtracks: every
 * possible parse steps forward at once, one character at a time (a Pike VM,
 * as RE2 runs), so the cost is the URI's length times the template's.
 * Even linear, a 1 MB URI tried against every template stalls the event
 * loop for a hundred milliseconds and more, so a URI longer than
 * `MAX_TEMPLATE_URI_LENGTH` is never matched: it names no templated resource.
 *
 * A decoded value is refused (the URI names no resource) when it holds a
 * `/` or `\`, a control character, or is `.` or `..`: a handler joining it
 * into a path or key is never walked out of its directory
 * (`files://..%2F..%2Fetc%2Fpasswd`, `files://..`).
 */
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'

/** The variable names of a template, as a union of string literal types. */
export type TemplateVariableNames<T extends string> =
  T extends `${string}{${infer Name}}${infer Rest}` ? Name | TemplateVariableNames<Rest> : never

/** `{ id: string }` for `notes://note/{id}`. */
export type TemplateVariables<T extends string> = { [K in TemplateVariableNames<T>]: string }

/**
 * The longest URI matched against templates (characters); a longer one
 * matches none. Far above any real resource URI, and what one match of it
 * costs is a fraction of a millisecond.
 */
export const MAX_TEMPLATE_URI_LENGTH = 8192

const EXPRESSION = /\{([^{}]*)\}/g
const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/

export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  /** The variables of `uri` (percent-decoded) when it matches, else undefined (always for a URI over `MAX_TEMPLATE_URI_LENGTH`). */
  match (uri: string): Record<string, string> | undefined
}

/** Decoded values that could walk a path: a separator, a control character, `.` or `..` alone. */
const UNSAFE_VALUE = /[/\\\u0000-\u001f\u007f-\u009f]|^\.\.?$/

/**
 * A template as steps: a literal character is its code (>= 0), variable `v`
 * is `-1 - v`. One typed array, so the matcher's inner loop stays monomorphic.
 */
type Steps = Int32Array

/** A capture, linked to the ones set before it: parses share their history, so a step copies nothing. */
interface Capture {
  readonly slot: number
  readonly at: number
  readonly before: Capture | undefined
}

/**
 * Matches the whole of `uri` against `steps`: each variable's [start, end)
 * as pairs of slots, or undefined. A parse waiting at step `s` needs that
 * step next (a variable's step: one more character of it), so two parses at
 * one step have the same future and only the first, in a backtracking
 * matcher's order, is kept: at most `steps.length + 1` parses per character.
 */
function matchSteps (steps: Steps, variableCount: number, uri: string): Int32Array | undefined {
  const end = steps.length
  // Two generations of parses (this character's and the next's), each at most one per step.
  let states = new Int32Array(end + 1)
  let caps: Array<Capture | undefined> = new Array(end + 1).fill(undefined)
  let count = 0
  let nextStates = new Int32Array(end + 1)
  let nextCaps: Array<Capture | undefined> = new Array(end + 1).fill(undefined)
  let nextCount = 0
  const seenAt = new Int32Array(end + 1).fill(-1)
  // The first step, reached before any character (a variable there starts at 0).
  seenAt[0] = 0
  nextStates[nextCount] = 0
  nextCaps[nextCount++] = end > 0 && (steps[0] as number) < 0 ? { slot: (-1 - (steps[0] as number)) * 2, at: 0, before: undefined } : undefined
  for (let at = 0; at < uri.length && nextCount > 0; at++) {
    const swapStates = states
    states = nextStates
    nextStates = swapStates
    const swapCaps = caps
    caps = nextCaps
    nextCaps = swapCaps
    count = nextCount
    nextCount = 0
    const code = uri.charCodeAt(at)
    const next = at + 1
    const delimiter = code === 0x2f || code === 0x3f || code === 0x23
    for (let i = 0; i < count; i++) {
      const state = states[i] as number
      if (state === end) continue // the template ended before the URI
      const step = steps[state] as number
      let captures = caps[i]
      if (step >= 0) {
        if (step !== code) continue
      } else {
        if (delimiter) continue
        // Greedy: one more character of this variable is tried before what follows it.
        if (seenAt[state] !== next) {
          seenAt[state] = next
          nextStates[nextCount] = state
          nextCaps[nextCount++] = captures
        }
        captures = { slot: (-1 - step) * 2 + 1, at: next, before: captures }
      }
      // On to the following step (a variable there starts here).
      const following = state + 1
      if (seenAt[following] === next) continue
      seenAt[following] = next
      const then = following < end ? steps[following] as number : 0
      nextStates[nextCount] = following
      nextCaps[nextCount++] = then < 0 ? { slot: (-1 - then) * 2, at: next, before: captures } : captures
    }
  }
  for (let i = 0; i < nextCount; i++) {
    if (nextStates[i] !== end) continue
    const found = new Int32Array(variableCount * 2).fill(-1)
    for (let c = nextCaps[i]; c !== undefined; c = c.before) if (found[c.slot] === -1) found[c.slot] = c.at
    return found
  }
  return undefined
}

export function parseUriTemplate (template: string, where: string): UriTemplate {
  if (typeof template !== 'string' || template.length === 0) throw new FST_MCP_INVALID_DEFINITION(where, '"uriTemplate" must be a non-empty string')
  const variables: string[] = []
  const codes: number[] = []
  const literal = (text: string): void => {
    for (let i = 0; i < text.length; i++) codes.push(text.charCodeAt(i))
  }
  let last = 0
  for (const found of template.matchAll(EXPRESSION)) {
    const name = found[1] as string
    if (!VARNAME.test(name)) {
      throw new FST_MCP_INVALID_DEFINITION(where, `"{${name}}" is not a simple variable: only RFC 6570 level 1 expressions such as {id} are supported`)
    }
    if (variables.includes(name)) throw new FST_MCP_INVALID_DEFINITION(where, `variable "${name}" appears twice`)
    variables.push(name)
    literal(template.slice(last, found.index))
    codes.push(-variables.length) // variable v = variables.length - 1, as -1 - v
    last = (found.index as number) + found[0].length
  }
  const tail = template.slice(last)
  if (/[{}]/.test(tail) || /[{}]/.test(template.replace(EXPRESSION, ''))) {
    throw new FST_MCP_INVALID_DEFINITION(where, `unbalanced braces in "${template}"`)
  }
  literal(tail)
  const steps: Steps = Int32Array.from(codes)
  return Object.freeze({
    template,
    variables: Object.freeze(variables),
    match (uri: string): Record<string, string> | undefined {
      if (uri.length > MAX_TEMPLATE_URI_LENGTH) return undefined
      const found = matchSteps(steps, variables.length, uri)
      if (found === undefined) return undefined
      const values: Record<string, string> = Object.create(null)
      for (let i = 0; i < variables.length; i++) {
        let value: string
        try {
          value = decodeURIComponent(uri.slice(found[2 * i], found[2 * i + 1]))
        } catch {
          return undefined // malformed percent-encoding names no resource
        }
        if (UNSAFE_VALUE.test(value)) return undefined
        values[variables[i] as string] = value
      }
      return values
    }
  })
}
