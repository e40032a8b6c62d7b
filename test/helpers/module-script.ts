/**
 * Runs an ES module script in a fresh `node --import tsx` process at the
 * repository's root and reads its last line of output as JSON: how the
 * "loaded only when used" tests see what a new process resolves, free of
 * what the test runner already loaded.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from './paths.js'

export function runModuleScript (script: string, env: NodeJS.ProcessEnv = process.env): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env, timeout: 120_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${error.message}\n${err}`))
      else resolve(JSON.parse(out.trim().split('\n').pop() as string))
    })
  })
}

/** What `runLoggingModules` returns: the script's last line of output, and the records written to `MODULE_LOG` (JSON, of the shape the caller's hooks and script write). */
export interface ModuleLog<R> { output: string, records: R[] }

/**
 * Runs an ES module script in a fresh plain `node` process (no tsx: the
 * built package loaded as an application loads it) at the repository's
 * root, with the module hooks `hooks` (an ES module's source) registered
 * before it. The hooks, and the script too, append one JSON record per line
 * to the file named by `process.env.MODULE_LOG`: how the package tests see
 * what a process loads, step by step.
 */
export async function runLoggingModules<R> (hooks: string, script: string): Promise<ModuleLog<R>> {
  const dir = mkdtempSync(join(tmpdir(), 'module-log-'))
  try {
    const log = join(dir, 'modules.log')
    const env: NodeJS.ProcessEnv = { ...process.env, MODULE_LOG: log }
    delete env.NODE_OPTIONS
    const source = `import { register } from 'node:module'\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}))\n${script}`
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: REPO_ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`${error.message}\n${stderr}`))
        else resolve(stdout)
      })
    })
    const records = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as R)
    return { output: out.trim().split('\n').pop() ?? '', records }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
