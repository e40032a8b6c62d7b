/**
 * `validate.results`: every handler result checked against its method's wire
 * schema (the method table's, lib/protocol/methods.ts) for the request's era, before it is sent. A
 * mismatch is the server's bug: logged with each failing path, answered
 * -32603 without details. Validators are compiled once, at registration,
 * and only when the option is on.
 */
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '../typebox/compiler.js'
import { type Era, MODULE_METHODS } from '../protocol/methods.js'

/** Returns the problems of `result` for `method` in `era` (empty when it matches). */
export type ResultCheck = (method: string, era: Era, result: Record<string, unknown>) => string[]

/** Results the endpoint completes or that follow another schema (tasks, input rounds) are not checked here. */
const DEFERRED_RESULT_TYPES: ReadonlySet<unknown> = new Set(['input_required', 'task'])

function describe (check: TypeCheck<TSchema>, value: unknown): string[] {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const error of check.Errors(value)) {
    if (seen.has(error.path)) continue
    seen.add(error.path)
    lines.push(`${error.path === '' ? '(result)' : error.path}: ${error.message}`)
    if (lines.length === 20) break
  }
  return lines
}

export function createResultCheck (): ResultCheck {
  const compiled = { legacy: new Map<string, TypeCheck<TSchema>>(), modern: new Map<string, TypeCheck<TSchema>>() }
  for (const [method, { result }] of MODULE_METHODS) {
    compiled.legacy.set(method, TypeCompiler.Compile(result.legacy))
    compiled.modern.set(method, result.modern === result.legacy ? compiled.legacy.get(method) as TypeCheck<TSchema> : TypeCompiler.Compile(result.modern))
  }
  return (method, era, result) => {
    if (DEFERRED_RESULT_TYPES.has(result.resultType)) return []
    const check = compiled[era].get(method)
    if (check === undefined || check.Check(result)) return []
    return describe(check, result)
  }
}
