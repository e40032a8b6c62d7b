/**
 * Validators for our own TypeBox schemas (with the ajv settings the spec's
 * validators use, see spec-schemas.ts) and the spec's 2026-07-28 examples.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import { SPEC_DIR } from './paths.js'

export type SpecVersion = '2025-11-25' | '2026-07-28'
export { specValidator } from './spec-schemas.js'

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

function newAjv (): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  return ajv
}

const ourAjv = newAjv()

/** An ajv validator for one of our TypeBox schemas. */
export function ourValidator (schema: TSchema): ValidateFunction {
  return ourAjv.compile(schema)
}

/** The 2026-07-28 spec examples of a type, as `[file name, value]` pairs. */
export function specExamples (type: string): Array<[string, unknown]> {
  const dir = join(SPEC_DIR, '2026-07-28', 'examples', type)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8'))])
}
