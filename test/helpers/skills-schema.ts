/**
 * Validators for the Skills extension's wire types (test/fixtures/ext-skills,
 * see its README), which refer to the vendored 2026-07-28 base schema.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { REPO_ROOT, SPEC_DIR } from './paths.js'

const BASE_ID = 'https://schemas.test/mcp-spec/2026-07-28/schema.json'
const SKILLS_ID = 'https://schemas.test/ext-skills/schema.json'

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

let ajv: Ajv2020 | undefined

function instance (): Ajv2020 {
  if (ajv === undefined) {
    // formats checked (uri, date-time ...), as the spec validators in test/helpers/spec-schema.ts do
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
    ajv.addSchema(JSON.parse(readFileSync(join(SPEC_DIR, '2026-07-28', 'schema.json'), 'utf8')), BASE_ID)
    ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'ext-skills', 'schema.json'), 'utf8')))
  }
  return ajv
}

/** The validator of one `$defs` entry of the extension's schema (`Skill`, `ListSkillsResult`, ...). */
export function skillsValidator (name: string): ValidateFunction {
  const validate = instance().getSchema(`${SKILLS_ID}#/$defs/${name}`)
  if (validate === undefined) throw new Error(`no $defs/${name} in the skills schema`)
  return validate
}

/** The problems of `value` as `name` (empty when valid). */
export function skillsProblems (name: string, value: unknown): string[] {
  const validate = skillsValidator(name)
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message ?? ''}`)
}
