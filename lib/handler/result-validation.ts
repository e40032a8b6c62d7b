/**
 * `validate.results`: every handler result checked against its method's wire
 * schema (protocol/schemas.ts) for the request's era, before it is sent. A
 * mismatch is the server's bug: logged with each failing path, answered
 * -32603 without details. Validators are compiled once, at registration,
 * and only when the option is on.
 */
import { type TSchema, Type } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { Era } from '../protocol/methods.js'
import {
  CallToolResult,
  CompleteResult,
  EmptyResult,
  GetPromptResult,
  GetSkillResult,
  ListSkillsResult,
  ReadResourceDirectoryResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult
} from '../protocol/schemas.js'

/** Returns the problems of `result` for `method` in `era` (empty when it matches). */
export type ResultCheck = (method: string, era: Era, result: Record<string, unknown>) => string[]

/** 2026-07-28 lets `structuredContent` be any JSON value; legacy revisions want an object. */
const ModernCallToolResult = Type.Composite([Type.Omit(CallToolResult, ['structuredContent']), Type.Object({ structuredContent: Type.Optional(Type.Unknown()) })], { additionalProperties: true })

const SCHEMAS: Readonly<Record<string, TSchema>> = {
  'tools/list': ListToolsResult,
  'tools/call': CallToolResult,
  'resources/list': ListResourcesResult,
  'resources/read': ReadResourceResult,
  'resources/templates/list': ListResourceTemplatesResult,
  'prompts/list': ListPromptsResult,
  'prompts/get': GetPromptResult,
  'completion/complete': CompleteResult,
  'resources/subscribe': EmptyResult,
  'resources/unsubscribe': EmptyResult,
  'logging/setLevel': EmptyResult,
  // The Skills extension (issue 32).
  'skills/list': ListSkillsResult,
  'skills/get': GetSkillResult,
  'resources/directory/read': ReadResourceDirectoryResult
}

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
  for (const [method, schema] of Object.entries(SCHEMAS)) {
    compiled.legacy.set(method, TypeCompiler.Compile(schema))
    compiled.modern.set(method, TypeCompiler.Compile(method === 'tools/call' ? ModernCallToolResult : schema))
  }
  return (method, era, result) => {
    if (DEFERRED_RESULT_TYPES.has(result.resultType)) return []
    const check = compiled[era].get(method)
    if (check === undefined || check.Check(result)) return []
    return describe(check, result)
  }
}
