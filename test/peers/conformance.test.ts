/**
 * The official conformance suite against the conformance example, started as
 * `npm run start:conformance` would start it (Node 20 + tsx, free loopback
 * port): every run against the dual-era deployment, and each requirement set
 * again against the deployment serving only its era. The suite runs under
 * Node 22 with the expected-failures baseline: it exits 0 only when every
 * failure is listed there and no listed check passes (a stale entry fails the
 * run too). The per-run pass counts are printed as TAP comments.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { type ExampleProcess, startConformanceExample } from './example-process.js'
import { ensurePeers, REPO_DIR } from './node22.js'
import { count, isExpected, isFailed, loadBaseline, loadRequirements, runSuite, type ScenarioResult } from './suite.js'

const BASELINE_FILE = join(REPO_DIR, 'test', 'peers', 'expected-failures.yaml')

interface Run {
  name: string
  era: 'legacy' | 'modern' | 'dual'
  args: string[]
  /** Scenarios whose results must all be present and judged. */
  scored: string[]
  /** Scenarios that run but neither decide the exit code nor are judged. */
  notScored: string[]
}

await ensurePeers()
const baseline = loadBaseline(BASELINE_FILE)
const r2025 = loadRequirements('2025-11-25')
const r2026 = loadRequirements('2026-07-28')

// tasks-status-notifications only reports SKIPPED in this suite version (its harness awaits a rewrite).
const TASKS_SCENARIOS = r2026.notScored.filter((name) => name.startsWith('tasks-') && name !== 'tasks-status-notifications')

const runs: Run[] = [
  { name: 'requirements 2025-11-25', era: 'dual', args: ['--requirements', '2025-11-25'], ...r2025 },
  { name: 'requirements 2026-07-28', era: 'dual', args: ['--requirements', '2026-07-28'], ...r2026 },
  { name: 'server-stateless', era: 'dual', args: ['--scenario', 'server-stateless'], scored: ['server-stateless'], notScored: [] },
  { name: 'http-header-validation', era: 'dual', args: ['--scenario', 'http-header-validation'], scored: ['http-header-validation'], notScored: [] },
  {
    name: 'http-custom-header-server-validation',
    era: 'dual',
    args: ['--scenario', 'http-custom-header-server-validation'],
    scored: ['http-custom-header-server-validation'],
    notScored: []
  },
  {
    name: 'dns-rebinding-protection at 2025-11-25',
    era: 'dual',
    args: ['--scenario', 'dns-rebinding-protection', '--spec-version', '2025-11-25'],
    scored: ['dns-rebinding-protection'],
    notScored: []
  },
  {
    name: 'dns-rebinding-protection at 2026-07-28',
    era: 'dual',
    args: ['--scenario', 'dns-rebinding-protection', '--spec-version', '2026-07-28'],
    scored: ['dns-rebinding-protection'],
    notScored: []
  },
  // The tasks extension's scenarios, each run alone and judged here (the requirement sets run them unscored).
  ...TASKS_SCENARIOS.map((scenario): Run => ({ name: scenario, era: 'dual', args: ['--scenario', scenario], scored: [scenario], notScored: [] })),
  { name: 'requirements 2025-11-25 (legacy-only deployment)', era: 'legacy', args: ['--requirements', '2025-11-25'], ...r2025 },
  { name: 'requirements 2026-07-28 (modern-only deployment)', era: 'modern', args: ['--requirements', '2026-07-28'], ...r2026 }
]

t.ok(r2025.scored.includes('server-initialize') && r2026.scored.includes('server-stateless'), 'the requirement sets name the lifecycle scenarios')
t.ok(TASKS_SCENARIOS.includes('tasks-lifecycle') && TASKS_SCENARIOS.includes('tasks-mrtr-composition'), 'the 2026-07-28 set runs the tasks scenarios')

const examples = new Map<Run['era'], ExampleProcess>()
async function example (era: Run['era']): Promise<ExampleProcess> {
  let started = examples.get(era)
  if (started === undefined) {
    started = await startConformanceExample(era)
    examples.set(era, started)
    t.teardown(started.close)
  }
  return started
}
const outputRoot = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
t.teardown(() => rmSync(outputRoot, { recursive: true, force: true }))

for (const [index, run] of runs.entries()) {
  await t.test(run.name, async (t) => {
    const { url } = await example(run.era)
    const { code, output, results } = await runSuite(url, [...run.args, '--expected-failures', BASELINE_FILE], join(outputRoot, String(index)))
    const byName = new Map(results.map((r) => [r.scenario, r]))

    t.same(results.map((r) => r.scenario).sort(), [...run.scored, ...run.notScored].sort(), 'ran exactly the scenarios of the selection')

    for (const scenario of run.scored) {
      const result = byName.get(scenario)
      if (result === undefined) continue
      const unexpected = result.checks.filter((c) => isFailed(c) && !isExpected(baseline, scenario, c))
      // A scenario whose every check is an expected failure may pass none (e.g. it stops at a missing feature).
      const allExpected = result.checks.length > 0 && result.checks.every((c) => isFailed(c) && isExpected(baseline, scenario, c))
      t.ok(count(result, 'SUCCESS') > 0 || allExpected, `${scenario}: at least one check passes`)
      t.same(unexpected.map((c) => `${scenario}:${c.id} ${c.status} ${c.errorMessage ?? ''}`), [], `${scenario}: every failure is an expected one`)
    }

    t.equal(code, 0, 'the suite exits 0 (no unexpected failure, no stale baseline entry)', { output: tail(output) })
    t.comment(summary(run, byName))
  })
}

// tasks-status-notifications, forced: this suite version only reports SKIPPED (its harness awaits a rewrite
// against subscriptions/listen), and the run must still end clean; test/tasks/notifications.test.ts checks
// what the scenario is to check (notifications/tasks carrying taskId, status and the DetailedTask payload).
await t.test('tasks-status-notifications (--force)', async (t) => {
  const { url } = await example('dual')
  const { code, output, results } = await runSuite(url, ['--scenario', 'tasks-status-notifications', '--force'], join(outputRoot, 'status-notifications'))
  const result = results.find((r) => r.scenario === 'tasks-status-notifications')
  t.ok(result !== undefined && result.checks.length > 0, 'the scenario ran')
  t.same(result?.checks.filter(isFailed).map((c) => `${c.id} ${c.status} ${c.errorMessage ?? ''}`) ?? [], [], 'no failure and no warning')
  t.equal(code, 0, 'the suite exits 0', { output: tail(output) })
  t.comment(`tasks-status-notifications (--force): ${result?.checks.map((c) => `${c.id} ${c.status}`).join(', ') ?? 'no result'}`)
})

function summary (run: Run, byName: Map<string, ScenarioResult>): string {
  const lines: string[] = []
  const totals = (names: string[]): { passed: number, failed: number, warned: number } => {
    let passed = 0
    let failed = 0
    let warned = 0
    for (const name of names) {
      const result = byName.get(name)
      if (result === undefined) continue
      passed += count(result, 'SUCCESS')
      failed += count(result, 'FAILURE')
      warned += count(result, 'WARNING')
    }
    return { passed, failed, warned }
  }
  const scored = totals(run.scored)
  const clean = run.scored.filter((name) => {
    const result = byName.get(name)
    return result !== undefined && !result.checks.some(isFailed)
  })
  lines.push(`conformance ${run.name}: ${clean.length}/${run.scored.length} scenarios fully passing; ` +
    `checks ${scored.passed} passed, ${scored.failed} failed, ${scored.warned} warnings`)
  for (const name of run.scored) {
    const result = byName.get(name)
    if (result !== undefined) lines.push(`  ${result.checks.some(isFailed) ? '~' : '✓'} ${name}: ${count(result, 'SUCCESS')} passed, ${count(result, 'FAILURE')} failed, ${count(result, 'WARNING')} warnings`)
  }
  if (run.notScored.length > 0) {
    const other = totals(run.notScored)
    lines.push(`  not scored (${run.notScored.length} scenarios): checks ${other.passed} passed, ${other.failed} failed, ${other.warned} warnings`)
  }
  return lines.join('\n')
}

function tail (output: string): string {
  return output.split('\n').slice(-60).join('\n')
}
