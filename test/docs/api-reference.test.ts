/**
 * The API reference builds without a warning: `npm run docs` runs TypeDoc
 * over the package's entries (typedoc.json, treatWarningsAsErrors), so a doc
 * comment that links to nothing or a tag TypeDoc does not know fails here.
 * `--emit none` checks everything the real build checks without writing the
 * pages.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { REPO_ROOT } from '../helpers/paths.js'

const run = promisify(execFile)

t.test('typedoc.json documents every entry of the package', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>, scripts: Record<string, string> }
  const config = JSON.parse(readFileSync(join(REPO_ROOT, 'typedoc.json'), 'utf8')) as { entryPoints: string[], treatWarningsAsErrors: boolean }
  const entries = Object.values(pkg.exports)
    .flatMap((target) => typeof target === 'object' && target !== null && 'types' in target ? [String(target.types)] : [])
    .map((types) => types.replace(/^\.\/dist\/lib\//, 'lib/').replace(/\.d\.ts$/, '.ts'))
  t.strictSame([...config.entryPoints].sort(), entries.sort())
  t.equal(config.treatWarningsAsErrors, true)
  t.match(pkg.scripts.docs, /^typedoc\b/)
})

t.test('TypeDoc reads every doc comment without a warning', async (t) => {
  const typedoc = join(REPO_ROOT, 'node_modules', '.bin', 'typedoc')
  const result = await run(typedoc, ['--emit', 'none'], { cwd: REPO_ROOT, timeout: 240_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number, stdout?: string, stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` })
  )
  t.equal(result.code, 0, result.output)
  t.notMatch(result.output, /\[warning\]|\[error\]/)
})
