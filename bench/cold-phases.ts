/**
 * `npx tsx bench/cold-phases.ts`: where the plugin's own start-up cost goes,
 * in one process and without a socket, so the split is steadier than the
 * spawn-to-answer times of bench/cold-start.ts. Each round starts a fresh
 * `node` per contender (order rotated) that runs, with its CPU time read
 * after each step: by default the main thread's (`/proc/thread-self/schedstat`,
 * so V8's helper threads, concurrent GC and compilation, are left out; it is
 * updated at scheduler ticks, so single readings are coarse and only means
 * over many rounds are worth reading), with `--clock process` the whole
 * process's (`process.cpuUsage()`, exact but with the helpers' work):
 *
 * - `deps`: importing Fastify;
 * - `import`: importing the built package (dist/lib/index.js) and the
 *   TypeBox it offers (dist/lib/typebox/index.js, as bench/servers/cold-plugin.ts
 *   does; `@sinclair/typebox` for a build without it); the floor imports
 *   `@sinclair/typebox` and its compiler;
 * - `define`: `defineTools` with the ten tools of bench/cold-start-catalog.ts
 *   in TypeBox;
 * - `ready`: `Fastify()`, registering the plugin (era dual) and `ready()`;
 * - `first`: the first `tools/call` through `inject` (checked);
 * - `warm`: the mean of ten more.
 *
 * `floor` does the same with the TypeBox floor of bench/servers/cold-bare-typebox.ts
 * (the ten schemas compiled at start, one route): the plugin's own cost is
 * the difference. `--before <dir>` adds another checkout's build (its
 * dist/lib/index.js; run `npm run build` there first) to compare a change
 * side by side. Means over rounds without the fastest and slowest fifth
 * (steadier than medians on a shared machine). Never part of `npm test`.
 *
 *   npx tsx bench/cold-phases.ts                       # 15 rounds, legacy era, main-thread CPU
 *   npx tsx bench/cold-phases.ts --rounds 21 --era modern --before /path/to/other/checkout
 */
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { COLD_CALL, coldAnswer } from './cold-start-catalog.js'
import { coldContenders, coldSteps, typeboxOf } from './cold-steps.js'
import { coldRequestOf } from './cold-request.js'

const HELP = `Usage: npx tsx bench/cold-phases.ts [options]

  --rounds N      fresh processes per contender (default 15)
  --era E         legacy or modern (default legacy)
  --before DIR    also time DIR/dist/lib/index.js (another checkout, built)
  --clock C       thread (the main thread's CPU, default) or process (all threads)
`

const PHASES = ['deps', 'import', 'define', 'ready', 'first'] as const
type Phase = typeof PHASES[number]
type Sample = Record<Phase | 'warm', number>

/** The child's script: `entry` is the package's file URL, or null for the floor. */
function script (entry: string | null, typebox: string, era: 'legacy' | 'modern', clock: 'thread' | 'process'): string {
  const expected = coldAnswer(COLD_CALL.name, COLD_CALL.arguments).content[0]?.text as string
  return `
import { readFileSync } from 'node:fs'
const thread = ${JSON.stringify(clock === 'thread')} && (() => { try { readFileSync('/proc/thread-self/schedstat'); return true } catch { return false } })()
const cpu = () => {
  if (thread) return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}
const start = cpu()
const at = {}
const mark = (phase) => { at[phase] = cpu() - start }
const { headers, body: payload } = ${JSON.stringify(coldRequestOf(era))}
const Fastify = (await import('fastify')).default
mark('deps')
${coldSteps(entry, typebox, era, (step) => `mark('${step}')`)}
await app.ready()
mark('ready')
const call = () => app.inject({ method: 'POST', url: '/mcp', headers, payload })
const first = await call()
mark('first')
if (first.statusCode !== 200 || !first.body.includes(${JSON.stringify(expected)})) throw new Error('wrong answer: ' + first.statusCode + ' ' + first.body)
const before = cpu()
for (let i = 0; i < 10; i++) await call()
at.warm = (cpu() - before) / 10
await app.close()
console.log(JSON.stringify(at))
`
}

/** The mean without the lowest and highest fifth of the values. */
function trimmedMean (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const cut = Math.floor(sorted.length / 5)
  const kept = sorted.slice(cut, sorted.length - cut)
  return kept.reduce((sum, value) => sum + value, 0) / kept.length
}

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    era: { type: 'string', default: 'legacy' },
    before: { type: 'string' },
    clock: { type: 'string', default: 'thread' },
    help: { type: 'boolean', default: false }
  }
})
if (args.help) {
  console.log(HELP)
  process.exit(0)
}
const era = args.era === 'modern' ? 'modern' : 'legacy'
const clock = args.clock === 'process' ? 'process' : 'thread'
const rounds = Number(args.rounds)
const contenders = coldContenders(args.before)

const samples = new Map<string, Sample[]>(contenders.map(({ label }) => [label, []]))
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < contenders.length; i++) {
    const { label, entry, cwd } = contenders[(round + i) % contenders.length] as typeof contenders[number]
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(entry, typeboxOf(entry), era, clock)], { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
    samples.get(label)?.push(JSON.parse(out.trim().split('\n').pop() as string) as Sample)
  }
}

console.log(`CPU ms (${clock}), trimmed means of ${rounds} rounds, era ${era} (step: its own time; own: the plugin's steps after deps, less the floor's)`)
const floorTotal = trimmedMean((samples.get('floor') as Sample[]).map((s) => s.first - s.deps))
for (const { label } of contenders) {
  const list = samples.get(label) as Sample[]
  const steps = PHASES.map((phase, i) => `${phase} ${trimmedMean(list.map((s) => i === 0 ? s[phase] : s[phase] - s[PHASES[i - 1] as Phase])).toFixed(1)}`)
  const total = trimmedMean(list.map((s) => s.first - s.deps))
  const own = label === 'floor' ? '' : `  own ${(total - floorTotal).toFixed(1)}`
  console.log(`${label.padEnd(7)} ${steps.join('  ')}  warm ${trimmedMean(list.map((s) => s.warm)).toFixed(2)}  after deps ${total.toFixed(1)}${own}`)
}
