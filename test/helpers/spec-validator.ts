/**
 * Validators for one `$defs` entry of the spec's JSON Schema of a protocol
 * version, with formats checked (the spec uses `uri`, `byte`, ...).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Ajv } from 'ajv'
import type { ValidateFunction } from 'ajv'
import formats from 'ajv-formats'
import { SPEC_DIR } from './shared.js'

const DRAFT_07 = new Set(['2024-11-05', '2025-03-26', '2025-06-18'])
const instances = new Map<string, Ajv | Ajv2020>()

function ajvFor (version: string): Ajv | Ajv2020 {
  const known = instances.get(version)
  if (known !== undefined) return known
  const schema = JSON.parse(readFileSync(join(SPEC_DIR, version, 'schema.json'), 'utf8'))
  const options = { strict: false, allErrors: true }
  const ajv = DRAFT_07.has(version) ? new Ajv(options) : new Ajv2020(options)
  // ajv-formats is CommonJS: its default export arrives as the module object under NodeNext
  const addFormats = ((formats as any).default ?? formats) as (a: Ajv) => void
  addFormats(ajv)
  // The whole document under one $id, so each definition's $refs resolve.
  ajv.addSchema({ ...schema, $id: `mcp-${version}` })
  instances.set(version, ajv)
  return ajv
}

export function specValidator (version: string, def: string): ValidateFunction {
  const defsKey = DRAFT_07.has(version) ? 'definitions' : '$defs'
  const validate = ajvFor(version).getSchema(`mcp-${version}#/${defsKey}/${def}`)
  if (validate === undefined) throw new Error(`no ${def} in the ${version} schema`)
  return validate
}
