/**
 * Runs an ES module script in a fresh `node --import tsx` process at the
 * repository's root and reads its last line of output as JSON: how the
 * "loaded only when used" tests see what a new process resolves, free of
 * what the test runner already loaded.
 */
import { execFile } from 'node:child_process'
import { REPO_ROOT } from './paths.js'

export function runModuleScript (script: string, env: NodeJS.ProcessEnv = process.env): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env, timeout: 120_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${error.message}\n${err}`))
      else resolve(JSON.parse(out.trim().split('\n').pop() as string))
    })
  })
}
