/**
 * Cheap guards for what the packaging test (pack.test.ts) finds the slow way:
 * coded errors are made through `coded()` so their declarations name
 * `CodedErrorConstructor`, never `createError.FastifyErrorConstructor` (a
 * namespace a consumer on `moduleResolution: bundler` cannot see).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from '../helpers/paths.js'
import * as errors from '../../lib/errors.js'

t.test('every coded error goes through coded()', async (t) => {
  const source = readFileSync(join(REPO_ROOT, 'lib', 'errors.ts'), 'utf8')
  const direct = source.split('\n').filter((line) => /createError\s*[<(]/.test(line))
  t.equal(direct.length, 1, 'createError is called once, inside coded()', { found: direct })
  const exported = Object.entries(errors).filter(([name]) => name.startsWith('FST_MCP_'))
  t.ok(exported.length >= 6)
  for (const [name, ErrorClass] of exported) {
    const error = new (ErrorClass as new (...args: string[]) => Error & { code: string, statusCode: number })('a', 'b')
    t.equal(error.code, name, `${name} carries its code`)
    t.equal(error.statusCode, 500, `${name}: status 500`)
    t.ok(error instanceof Error)
  }
})
