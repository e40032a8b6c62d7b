/**
 * Checks JSON-RPC response bodies against the official MCP JSON Schemas of
 * the protocol version they speak (draft-07 for 2024-11-05..2025-06-18, draft
 * 2020-12 for 2025-11-25 and 2026-07-28), picking the envelope and the
 * specific result or error definition from the method and the error code.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { SPEC_DIR } from './paths.js'

export const SPEC_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const
export type SpecVersion = typeof SPEC_VERSIONS[number]
export const MODERN_SPEC_VERSION: SpecVersion = '2026-07-28'
export const LEGACY_SPEC_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const

type AnyAjv = Ajv | Ajv2020

// ajv-formats is CommonJS; under NodeNext its default export arrives untyped
const addFormats = addFormatsModule as unknown as (ajv: AnyAjv) => AnyAjv

const DRAFT_07: ReadonlySet<string> = new Set(['2024-11-05', '2025-03-26', '2025-06-18'])

const draft07 = new Ajv({ strict: false, allErrors: true })
const draft2020 = new Ajv2020({ strict: false, allErrors: true })
addFormats(draft07)
addFormats(draft2020)
for (const version of SPEC_VERSIONS) {
  const schema = JSON.parse(readFileSync(join(SPEC_DIR, version, 'schema.json'), 'utf8'))
  delete schema.$id
  ;(DRAFT_07.has(version) ? draft07 : draft2020).addSchema(schema, `mcp-${version}`)
}

export function isSpecVersion (value: unknown): value is SpecVersion {
  return typeof value === 'string' && (SPEC_VERSIONS as readonly string[]).includes(value)
}

/** The keyword under which a version's schema keeps its definitions. */
function defsKey (version: SpecVersion): string {
  return DRAFT_07.has(version) ? 'definitions' : '$defs'
}

const cache = new Map<string, ValidateFunction>()

/** A validator for one definition (`ListToolsResult`, ...) of the schema of `version`. */
export function specValidator (version: SpecVersion, def: string): ValidateFunction {
  const ref = `mcp-${version}#/${defsKey(version)}/${def}`
  let validate = cache.get(ref)
  if (validate === undefined) {
    const ajv = DRAFT_07.has(version) ? draft07 : draft2020
    validate = ajv.compile({ $ref: ref })
    cache.set(ref, validate)
  }
  return validate
}

/** Problems of `value` against `def` of `version`, as readable strings (empty when valid). */
export function specProblems (version: SpecVersion, def: string, value: unknown): string[] {
  const validate = specValidator(version, def)
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => `${version} ${def}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
}

/** Result definitions by method; legacy-only methods answer the empty result. */
const RESULT_DEFS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/read': 'ReadResourceResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult'
}

/**
 * Error definitions of 2026-07-28 by code. The first three describe the whole
 * response, the rest only the error object (see the mcp-spec README).
 */
const MODERN_ERROR_RESPONSE_DEFS: Readonly<Record<number, string>> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError'
}
const MODERN_ERROR_OBJECT_DEFS: Readonly<Record<number, string>> = {
  [-32700]: 'ParseError',
  [-32600]: 'InvalidRequestError',
  [-32601]: 'MethodNotFoundError',
  [-32602]: 'InvalidParamsError',
  [-32603]: 'InternalError'
}

function isObject (value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Every schema problem of a response body that speaks `version`, answering a
 * request for `method` (undefined when the request had none readable).
 *
 * An error with no `id` (its request's id was unreadable) is checked against
 * 2025-11-25 when `version` is older: the draft-07 schemas require an `id`
 * and do not allow null, so no valid id-less error exists in them.
 */
export function responseProblems (version: SpecVersion, body: unknown, method: string | undefined): string[] {
  if (!isObject(body)) return [`response body is not a JSON object: ${JSON.stringify(body)}`]
  const problems: string[] = []
  const draft07Version = DRAFT_07.has(version)

  if (Object.hasOwn(body, 'error')) {
    const errorVersion: SpecVersion = draft07Version && !Object.hasOwn(body, 'id') ? '2025-11-25' : version
    problems.push(...specProblems(errorVersion, DRAFT_07.has(errorVersion) ? 'JSONRPCError' : 'JSONRPCErrorResponse', body))
    const code = isObject(body.error) ? body.error.code : undefined
    if (typeof code === 'number') {
      // The modern error shapes are checked for any era that uses their codes
      // (a modern-only server answers legacy initialize with -32022).
      const responseDef = MODERN_ERROR_RESPONSE_DEFS[code]
      if (responseDef !== undefined) problems.push(...specProblems(MODERN_SPEC_VERSION, responseDef, body))
      const objectDef = MODERN_ERROR_OBJECT_DEFS[code]
      if (objectDef !== undefined && version === MODERN_SPEC_VERSION) problems.push(...specProblems(version, objectDef, body.error))
    }
    if (Object.hasOwn(body, 'result')) problems.push('response has both "error" and "result"')
    return problems
  }

  problems.push(...specProblems(version, draft07Version ? 'JSONRPCResponse' : 'JSONRPCResultResponse', body))
  const result = body.result
  let def = method === undefined ? undefined : RESULT_DEFS[method]
  if (version === MODERN_SPEC_VERSION && isObject(result) && result.resultType === 'input_required') def = 'InputRequiredResult'
  if (def === undefined) def = 'Result'
  problems.push(...specProblems(version, def, result))
  return problems
}
