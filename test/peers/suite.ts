/**
 * Runs the official conformance suite (server mode, under Node 22) and reads
 * its per-scenario results (`<output-dir>/server-<scenario>-<timestamp>/checks.json`).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { cleanEnv } from './example-process.js'
import { CONFORMANCE_CLI, CONFORMANCE_DIR, NODE22 } from './node22.js'

const RUN_TIMEOUT_MS = 180_000
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'

export interface Check {
  id: string
  status: CheckStatus
  description?: string
  errorMessage?: string
}

export interface ScenarioResult {
  scenario: string
  checks: Check[]
}

export interface SuiteRun {
  code: number | null
  output: string
  results: ScenarioResult[]
}

/** `conformance server --url URL ...args -o outputDir`, with its exit code, output and results. */
export function runSuite (url: string, args: string[], outputDir: string): Promise<SuiteRun> {
  mkdirSync(outputDir, { recursive: true })
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE_CLI, 'server', '--url', url, ...args, '-o', outputDir], {
      cwd: outputDir,
      env: cleanEnv({ NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      try {
        resolve({ code, output, results: readResults(outputDir) })
      } catch (err) {
        reject(err)
      }
    })
  })
}

export function readResults (outputDir: string): ScenarioResult[] {
  if (!existsSync(outputDir)) return []
  const results: ScenarioResult[] = []
  for (const entry of readdirSync(outputDir).sort()) {
    const match = RESULT_DIR.exec(entry)
    const file = join(outputDir, entry, 'checks.json')
    if (match === null || !existsSync(file)) continue
    results.push({ scenario: match[1] ?? entry, checks: JSON.parse(readFileSync(file, 'utf8')) as Check[] })
  }
  return results
}

const yaml = (): { parse: (source: string) => unknown } =>
  createRequire(join(CONFORMANCE_DIR, 'package.json'))('yaml') as { parse: (source: string) => unknown }

export interface Requirements {
  /** Scenarios the revision requires (they decide the exit code). */
  scored: string[]
  /** Scenarios the revision runs and reports without counting. */
  notScored: string[]
}

/** The server scenarios of a frozen requirement set, from the suite's own `requirements/<revision>.yaml`. */
export function loadRequirements (revision: string): Requirements {
  const doc = yaml().parse(readFileSync(join(CONFORMANCE_DIR, 'requirements', `${revision}.yaml`), 'utf8')) as {
    server?: string[]
    not_scored?: Array<{ scenario: string, leg: string }>
  }
  return {
    scored: doc.server ?? [],
    notScored: (doc.not_scored ?? []).filter((e) => e.leg === 'server').map((e) => e.scenario)
  }
}

export interface BaselineEntry {
  scenario: string
  checkId?: string
}

/** The `server` list of an expected-failures file: `scenario` or `scenario:check-id` entries. */
export function loadBaseline (file: string): BaselineEntry[] {
  const doc = yaml().parse(readFileSync(file, 'utf8')) as { server?: unknown[] } | null
  return (doc?.server ?? []).map((entry) => {
    const text = String(entry)
    const sep = text.indexOf(':')
    return sep === -1 ? { scenario: text } : { scenario: text.slice(0, sep), checkId: text.slice(sep + 1) }
  })
}

export function isFailed (check: Check): boolean {
  return check.status === 'FAILURE' || check.status === 'WARNING'
}

/** True when the baseline excuses this failing check. */
export function isExpected (baseline: BaselineEntry[], scenario: string, check: Check): boolean {
  return baseline.some((e) => e.scenario === scenario && (e.checkId === undefined || e.checkId === check.id))
}

export function count (result: ScenarioResult, status: CheckStatus): number {
  return result.checks.filter((c) => c.status === status).length
}
