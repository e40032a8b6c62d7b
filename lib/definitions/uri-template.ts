/**
 * RFC 6570 level 1 URI templates (`notes://note/{id}`): simple string
 * variables, matched against a URI and typed from the template's text.
 * Operators and modifiers (`{+path}`, `{id*}`, `{a,b}`) are refused when the
 * resource is defined, so what matches is always what the template says.
 */
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'

/** The variable names of a template, as a union of string literal types. */
export type TemplateVariableNames<T extends string> =
  T extends `${string}{${infer Name}}${infer Rest}` ? Name | TemplateVariableNames<Rest> : never

/** `{ id: string }` for `notes://note/{id}`. */
export type TemplateVariables<T extends string> = { [K in TemplateVariableNames<T>]: string }

const EXPRESSION = /\{([^{}]*)\}/g
const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/

export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  /** The variables of `uri` (percent-decoded) when it matches, else undefined. */
  match (uri: string): Record<string, string> | undefined
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export function parseUriTemplate (template: string, where: string): UriTemplate {
  if (typeof template !== 'string' || template.length === 0) throw new FST_MCP_INVALID_DEFINITION(where, '"uriTemplate" must be a non-empty string')
  const variables: string[] = []
  let pattern = '^'
  let last = 0
  for (const found of template.matchAll(EXPRESSION)) {
    const name = found[1] as string
    if (!VARNAME.test(name)) {
      throw new FST_MCP_INVALID_DEFINITION(where, `"{${name}}" is not a simple variable: only RFC 6570 level 1 expressions such as {id} are supported`)
    }
    if (variables.includes(name)) throw new FST_MCP_INVALID_DEFINITION(where, `variable "${name}" appears twice`)
    variables.push(name)
    pattern += escapeRegExp(template.slice(last, found.index)) + '([^/?#]+)'
    last = (found.index as number) + found[0].length
  }
  const tail = template.slice(last)
  if (/[{}]/.test(tail) || /[{}]/.test(template.replace(EXPRESSION, ''))) {
    throw new FST_MCP_INVALID_DEFINITION(where, `unbalanced braces in "${template}"`)
  }
  pattern += escapeRegExp(tail) + '$'
  const regex = new RegExp(pattern)
  return Object.freeze({
    template,
    variables: Object.freeze(variables),
    match (uri: string): Record<string, string> | undefined {
      const found = regex.exec(uri)
      if (found === null) return undefined
      const values: Record<string, string> = Object.create(null)
      for (let i = 0; i < variables.length; i++) {
        try {
          values[variables[i] as string] = decodeURIComponent(found[i + 1] as string)
        } catch {
          return undefined // malformed percent-encoding names no resource
        }
      }
      return values
    }
  })
}

/** Expands a template with string values (percent-encoding what is not unreserved), as RFC 6570 simple expansion does. */
export function expandUriTemplate (template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(EXPRESSION, (_whole, name: string) => {
    const value = values[name] ?? ''
    return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  })
}
