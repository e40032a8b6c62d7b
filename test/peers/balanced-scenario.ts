/**
 * The multi-instance proof: three instances of the conformance example
 * (`npm run start:conformance` with REDIS_URL or REDIS_CLUSTER_NODES, and
 * MCP_REQUEST_STATE_SECRET), sharing one real redis-server
 * (balanced.test.ts) or a real local Redis Cluster (balanced-cluster.test.ts),
 * behind a plain round-robin balancer (every
 * request to the next instance, nothing sticky). The official conformance
 * suite runs its full requirement sets for 2025-11-25 and 2026-07-28 and the
 * tasks extension's scenarios through the balancer, judged exactly like the
 * single-instance run (conformance.test.ts) against the same
 * expected-failures file, whose one entry is a 2025-11-25 warning about
 * session ids that a stateless endpoint never mints, on one instance or three.
 *
 * Then, with the instances addressed directly: a change notified through one
 * instance reaches listen streams held by the others.
 */
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { startBalancer } from '../helpers/balancer.js'
import { parseSseBlock, SseSplitter } from '../helpers/sse.js'
import { type ExampleProcess, startConformanceExample } from './example-process.js'
import { ensurePeers, REPO_DIR } from './node22.js'
import { count, isExpected, isFailed, loadBaseline, loadRequirements, runSuite } from './suite.js'

const BASELINE_FILE = join(REPO_DIR, 'test', 'peers', 'expected-failures.yaml')
const INSTANCES = 3
const SECRET = 'balanced-conformance-request-state-secret-0123456789'

/** Opens a listen stream on one instance; resolves once it is acknowledged. */
function listen (endpoint: string, id: string): Promise<{ next: () => Promise<any>, close: () => void }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        notifications: { toolsListChanged: true }
      }
    })
    const req = http.request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' }
    })
    const messages: any[] = []
    const waiting: Array<() => void> = []
    req.on('error', reject)
    req.on('response', (res) => {
      const splitter = new SseSplitter()
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        for (const block of splitter.push(chunk)) {
          const event = parseSseBlock(block)
          if (event.data === undefined) continue
          if (event.data.method === 'notifications/subscriptions/acknowledged') {
            resolve({
              next: () => new Promise((resolve, reject) => {
                const timer = setTimeout(() => reject(new Error(`no notification on ${id}`)), 5_000)
                const take = (): void => { clearTimeout(timer); resolve(messages.shift()) }
                if (messages.length > 0) take()
                else waiting.push(take)
              }),
              close: () => req.destroy()
            })
          } else {
            messages.push(event.data)
            waiting.shift()?.()
          }
        }
      })
    })
    req.end(body)
  })
}

/**
 * Runs the whole proof as subtests of `t`, the instances sharing the Redis
 * that `redisEnv` names (REDIS_URL or REDIS_CLUSTER_NODES); `label` names the
 * backend in the figures printed.
 */
export async function balancedConformance (t: Test, redisEnv: Record<string, string>, label: string): Promise<void> {
  await ensurePeers()
  const started = Date.now()
  const baseline = loadBaseline(BASELINE_FILE)
  const r2025 = loadRequirements('2025-11-25')
  const r2026 = loadRequirements('2026-07-28')
  // As in conformance.test.ts: tasks-status-notifications only reports SKIPPED in this suite version.
  const TASKS_SCENARIOS = r2026.notScored.filter((name) => name.startsWith('tasks-') && name !== 'tasks-status-notifications')

  const instances: ExampleProcess[] = []
  t.teardown(async () => { await Promise.all(instances.map((i) => i.close())) })
  for (let i = 0; i < INSTANCES; i++) {
    instances.push(await startConformanceExample('dual', { ...redisEnv, MCP_REQUEST_STATE_SECRET: SECRET, REDIS_PREFIX: 'balanced:' }))
  }
  const balancer = await startBalancer({ upstreams: instances.map((i) => new URL(i.url).origin) })
  t.teardown(balancer.close)
  const url = `${balancer.origin}/mcp`
  const outputRoot = mkdtempSync(join(tmpdir(), 'mcp-balanced-'))
  t.teardown(() => rmSync(outputRoot, { recursive: true, force: true }))

  const runs = [
    { name: 'requirements 2025-11-25', args: ['--requirements', '2025-11-25'], ...r2025 },
    { name: 'requirements 2026-07-28', args: ['--requirements', '2026-07-28'], ...r2026 },
    ...TASKS_SCENARIOS.map((scenario) => ({ name: scenario, args: ['--scenario', scenario], scored: [scenario], notScored: [] as string[] }))
  ]

  for (const [index, run] of runs.entries()) {
    await t.test(`through the balancer: ${run.name}`, async (t) => {
      const before = [...balancer.hits]
      const { code, output, results } = await runSuite(url, [...run.args, '--expected-failures', BASELINE_FILE], join(outputRoot, String(index)))
      const byName = new Map(results.map((r) => [r.scenario, r]))
      t.same(results.map((r) => r.scenario).sort(), [...run.scored, ...run.notScored].sort(), 'ran exactly the scenarios of the selection')
      let passed = 0
      let failed = 0
      let warned = 0
      for (const scenario of run.scored) {
        const result = byName.get(scenario)
        if (result === undefined) continue
        passed += count(result, 'SUCCESS')
        failed += count(result, 'FAILURE')
        warned += count(result, 'WARNING')
        const unexpected = result.checks.filter((c) => isFailed(c) && !isExpected(baseline, scenario, c))
        const allExpected = result.checks.length > 0 && result.checks.every((c) => isFailed(c) && isExpected(baseline, scenario, c))
        t.ok(count(result, 'SUCCESS') > 0 || allExpected, `${scenario}: at least one check passes`)
        t.same(unexpected.map((c) => `${scenario}:${c.id} ${c.status} ${c.errorMessage ?? ''}`), [], `${scenario}: every failure is an expected one`)
      }
      t.equal(code, 0, 'the suite exits 0 (no unexpected failure, no stale baseline entry)', { output: output.split('\n').slice(-60).join('\n') })
      const spread = balancer.hits.map((hits, i) => hits - (before[i] ?? 0))
      const total = spread.reduce((a, b) => a + b, 0)
      // Round robin: from INSTANCES requests on, every instance has served some.
      if (total >= INSTANCES) t.ok(spread.every((hits) => hits > 0), `every instance served part of the run (requests per instance: ${spread.join(', ')})`)
      t.comment(`balanced conformance (${label}) ${run.name}: checks ${passed} passed, ${failed} failed, ${warned} warnings (scored scenarios: ${run.scored.length}); requests per instance ${spread.join('/')}`)
    })
  }

  await t.test('a notify through one instance reaches the listen streams held by the others', async (t) => {
    const [first, second, third] = instances as [ExampleProcess, ExampleProcess, ExampleProcess]
    const onSecond = await listen(second.url, 'on-second')
    const onThird = await listen(third.url, 'on-third')
    t.teardown(() => { onSecond.close(); onThird.close() })
    const res = await fetch(first.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'test_trigger_tool_change' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'test_trigger_tool_change', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }
      })
    })
    t.equal(res.status, 200)
    await res.text()
    for (const [stream, id] of [[onSecond, 'on-second'], [onThird, 'on-third']] as const) {
      t.same(await stream.next(), {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id } }
      }, `${id} heard the change made through the first instance`)
    }
  })
  t.comment(`balanced conformance (${label}): ${runs.length} runs, ${balancer.hits.reduce((a, b) => a + b, 0)} requests through the balancer, ${Math.round((Date.now() - started) / 1000)} s`)
}
