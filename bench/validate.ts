/**
 * Correctness before speed: each server's answer to each scenario is checked
 * against the spec's JSON Schemas and the scenario's own expectations before
 * it is timed, and the bare reference must return the very bytes it copies.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import * as ajvFormats from 'ajv-formats'
import { REPO_DIR } from './launch.js'
import type { Scenario, SchemaRef } from './scenarios.js'

// ajv-formats is CommonJS with an `exports.default`: under NodeNext the plugin is `.default`
const addFormats = ajvFormats.default as unknown as ajvFormats.FormatsPlugin

/** The MCP spec schemas vendored for the tests (test/fixtures/mcp-spec, see its README). */
export const SPEC_DIR = join(REPO_DIR, 'test', 'fixtures', 'mcp-spec')

export class SpecSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly loaded = new Set<string>()
  private readonly cache = new Map<string, ValidateFunction>()

  constructor (private readonly specDir: string = SPEC_DIR) {
    addFormats(this.ajv)
  }

  get (version: string, def: string): ValidateFunction {
    const key = `${version}#${def}`
    let validate = this.cache.get(key)
    if (validate === undefined) {
      const id = `mcp-${version}`
      if (!this.loaded.has(version)) {
        const schema = JSON.parse(readFileSync(join(this.specDir, version, 'schema.json'), 'utf8'))
        this.ajv.addSchema({ ...schema, $id: id })
        this.loaded.add(version)
      }
      validate = this.ajv.getSchema(`${id}#/$defs/${def}`)
      if (validate === undefined) throw new Error(`no $defs/${def} in the ${version} schema`)
      this.cache.set(key, validate)
    }
    return validate
  }

  problems (ref: SchemaRef, message: Record<string, any>): string[] {
    const out: string[] = []
    const check = (def: string, value: unknown): void => {
      const validate = this.get(ref.version, def)
      if (!validate(value)) out.push(`${ref.version} ${def}: ${this.ajv.errorsText(validate.errors)}`)
    }
    check(ref.message, message)
    if (ref.result !== undefined) check(ref.result, message.result)
    return out
  }
}

export interface Captured {
  status: number
  headers: Record<string, string>
  /** The body exactly as received. */
  bytes: Buffer
  /** The same, decoded as UTF-8. */
  body: string
}

/** Sends the scenario's exact request once over real HTTP. */
export async function capture (port: number, scenario: Scenario): Promise<Captured> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: scenario.headers, body: scenario.body })
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => { headers[name] = value })
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers, bytes, body: bytes.toString('utf8') }
}

/** Headers that legitimately differ per response or per connection (tmcp opens a session for each sessionless legacy request). */
const VOLATILE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'mcp-session-id'])

/** The response headers a byte-identical copy must repeat. */
export function stableHeaders (headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers).sort()) {
    if (!VOLATILE_HEADERS.has(name)) out[name] = headers[name] as string
  }
  return out
}

/** The JSON-RPC message in a JSON body or in the first SSE `data:` frame. */
export function parseMessage (captured: Captured): Record<string, any> {
  const type = captured.headers['content-type'] ?? ''
  if (type.startsWith('text/event-stream')) {
    const data = captured.body.split('\n').find((line) => line.startsWith('data:'))
    if (data === undefined) throw new Error('SSE response without a data frame')
    return JSON.parse(data.slice(5))
  }
  if (!type.startsWith('application/json')) throw new Error(`unexpected content-type "${type}"`)
  return JSON.parse(captured.body)
}

/** Everything wrong with one server's answer to a scenario (empty when correct). */
export function problemsWith (schemas: SpecSchemas, scenario: Scenario, captured: Captured): string[] {
  const problems: string[] = []
  if (captured.status !== scenario.status) problems.push(`HTTP ${captured.status}, expected ${scenario.status}`)
  let message: Record<string, any>
  try {
    message = parseMessage(captured)
  } catch (error) {
    return [...problems, `unreadable body: ${(error as Error).message}: ${captured.body.slice(0, 200)}`]
  }
  return [...problems, ...schemas.problems(scenario.schema, message), ...scenario.check(message)]
}

/** Differences between a copy and its reference: body bytes, status and stable headers. */
export function differences (reference: Captured, copy: Captured): string[] {
  const out: string[] = []
  if (copy.status !== reference.status) out.push(`status ${copy.status} != ${reference.status}`)
  if (!copy.bytes.equals(reference.bytes)) out.push('body bytes differ')
  const a = JSON.stringify(stableHeaders(reference.headers))
  const b = JSON.stringify(stableHeaders(copy.headers))
  if (a !== b) out.push(`headers differ: ${b} != ${a}`)
  return out
}
