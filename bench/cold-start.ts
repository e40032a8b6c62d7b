/**
 * `npm run bench:cold-start`: process spawn to the first correct `tools/call`
 * answer, for a server defining ten tools with validated input
 * (bench/cold-start-catalog.ts), in both eras, side by side in one run:
 *
 * - `cold-bare`: the floor, a bare Fastify route parsing the same request and
 *   answering the bytes the plugin answered;
 * - `cold-bare-typebox`: the floor of any TypeBox-using app, the same route
 *   also importing `@sinclair/typebox`, compiling the ten tools' schemas with
 *   TypeCompiler and checking the call's arguments;
 * - `cold-plugin`: this plugin (`defineTools`, TypeBox), imported as a user
 *   installs it: the built bundle through package.json `exports` (the bench
 *   runs `npm run build` first when dist/ is older than lib/);
 * - `cold-tmcp`: tmcp with its zod adapter and HTTP transport;
 * - `cold-official`: the official SDK v2 on Fastify, zod schemas.
 *
 * Every round starts each server afresh per era (order rotated each round),
 * times spawn → listening → first answer, then the same call warm (median of
 * `--warm` calls, each on a new connection as the first was), and reads the
 * resident set once the first answer is in. Medians of `--rounds`, ratios to
 * both floors and to tmcp per round. Never part of `npm test`.
 *
 *   npm run bench:cold-start                   # 7 rounds
 *   npm run bench:cold-start -- --rounds 3 --servers cold-bare,cold-plugin
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { REPO_DIR, choosePinning, compileServers, launch, pinSelf, readCpuSeconds, readMemory } from './launch.js'
import { coldRequestOf } from './cold-request.js'
import { COLD_ANSWERS_ENV, COLD_CALL, coldAnswer, type ColdAnswer, type ColdAnswers } from './cold-start-catalog.js'

const ALL_SERVERS = ['cold-bare', 'cold-bare-typebox', 'cold-plugin', 'cold-tmcp', 'cold-official'] as const
/** The floors answer the bytes the plugin answered. */
const FLOORS: readonly ColdServer[] = ['cold-bare', 'cold-bare-typebox']
type ColdServer = typeof ALL_SERVERS[number]
type Era = 'legacy' | 'modern'
const ERAS: readonly Era[] = ['legacy', 'modern']

const HELP = `Usage: npm run bench:cold-start -- [options]

  --rounds N      fresh starts per server and era (default 7)
  --warm N        warm calls timed after each first answer (default 50)
  --servers a,b   subset of ${ALL_SERVERS.join(',')} (default all; the cold-bare floors need cold-plugin)
  --no-pin        do not pin the servers to core 1 with taskset
`

// ---------------------------------------------------------------------------
// The request of each era, and the checks of its answer

const EXPECTED_TEXT = coldAnswer(COLD_CALL.name, COLD_CALL.arguments).content[0]?.text

function requestOf (era: Era): { headers: Record<string, string>, body: string } {
  const { headers, body } = coldRequestOf(era)
  return { headers: { ...headers, connection: 'close' }, body }
}

interface Answer { status: number, headers: IncomingHttpHeaders, bytes: Buffer }

function post (port: number, era: Era): Promise<Answer> {
  const { headers, body } = requestOf(era)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The JSON-RPC message of an answer: the body, or the data of its one event when it is an event stream (tmcp answers so). */
function messageText (answer: Answer): string {
  const text = answer.bytes.toString('utf8')
  if (!String(answer.headers['content-type']).startsWith('text/event-stream')) return text
  return text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('')
}

/** What is wrong with an answer: the tool's text must come back, for id 1, not as an error. */
function problemsOf (answer: Answer, era: Era): string[] {
  const problems: string[] = []
  if (answer.status !== 200) problems.push(`HTTP ${answer.status}`)
  let message: any
  try {
    message = JSON.parse(messageText(answer))
  } catch {
    return [...problems, `not JSON: ${answer.bytes.toString('utf8').slice(0, 200)}`]
  }
  if (message?.id !== 1) problems.push(`id is ${JSON.stringify(message?.id)}`)
  if (message?.result?.isError === true || message?.error !== undefined) problems.push(`the call failed: ${JSON.stringify(message.error ?? message.result).slice(0, 200)}`)
  if (message?.result?.content?.[0]?.text !== EXPECTED_TEXT) problems.push(`content is ${JSON.stringify(message?.result?.content).slice(0, 200)}`)
  if (era === 'modern' && message?.result?.resultType !== 'complete') problems.push(`resultType is ${JSON.stringify(message?.result?.resultType)}`)
  return problems
}

// ---------------------------------------------------------------------------
// One cold start

interface Start {
  /** Spawn to the first correct answer, ms. */
  firstAnswer: number
  /** Spawn to listening (the child's IPC message), ms. */
  listening: number
  /** The first call alone: request sent to answer read, ms. */
  firstCall: number
  /** Median of the warm calls, ms. */
  warmCall: number
  /** Resident set once the first answer is in, bytes. */
  rss: number
  /** CPU the server used up to its first answer (user + system, 10 ms ticks), ms: steadier than wall time on a shared machine. */
  cpu: number
}

async function coldStart (name: ColdServer, era: Era, options: { pin: string | null, warm: number, env?: Record<string, string>, reference?: Buffer }): Promise<Start> {
  const spawned = performance.now()
  const server = await launch(name, { pin: options.pin, ...(options.env === undefined ? {} : { env: options.env }) })
  try {
    const listening = performance.now()
    const answer = await post(server.port, era)
    const answered = performance.now()
    const rss = readMemory(server.pid).current
    const cpu = readCpuSeconds(server.pid) * 1000
    const problems = problemsOf(answer, era)
    if (options.reference !== undefined && !answer.bytes.equals(options.reference)) problems.push('the bytes differ from the plugin\'s')
    if (problems.length > 0) throw new Error(`${name} answers the ${era} tools/call wrongly: ${problems.join('; ')}`)
    const warm: number[] = []
    for (let i = 0; i < options.warm; i++) {
      const sent = performance.now()
      const again = await post(server.port, era)
      warm.push(performance.now() - sent)
      if (again.status !== 200 || !again.bytes.equals(answer.bytes)) throw new Error(`${name}: a warm ${era} call answered differently from the first`)
    }
    return { firstAnswer: answered - spawned, listening: listening - spawned, firstCall: answered - listening, warmCall: median(warm), rss, cpu }
  } finally {
    await server.stop()
  }
}

// ---------------------------------------------------------------------------
// Statistics and the report

function median (values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

function fixed (n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a'
}

function table (rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? []
  return rows.map((row) => row.map((text, i) => text.padEnd((widths[i] ?? 0) + 2)).join('').trimEnd()).join('\n')
}

/** Median of the per-round ratios a/b (both started in the same round), with their range. */
function roundRatio (a: readonly Start[], b: readonly Start[], metric: keyof Start): string {
  const perRound = a.map((run, i) => run[metric] / (b[i]?.[metric] ?? Number.NaN)).filter(Number.isFinite)
  if (perRound.length === 0) return 'n/a'
  return `${fixed(median(perRound), 2)} (${fixed(Math.min(...perRound), 2)}-${fixed(Math.max(...perRound), 2)})`
}

function rotate<T> (items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length] as T)
}

function positive (name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"`)
  return n
}

/** The newest modification time under `path` (a file or a folder), ms. */
function newest (path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))))
}

/** cold-plugin runs the built package (dist/lib through `exports`): build it when lib/ or the build's inputs are newer. */
function ensureBuilt (): void {
  let built = 0
  try {
    built = statSync(join(REPO_DIR, 'dist', 'lib', 'index.js')).mtimeMs
  } catch {}
  const sources = Math.max(...['lib', 'package.json', 'tsconfig.build.json', join('scripts', 'build.mjs')].map((path) => newest(join(REPO_DIR, path))))
  if (built > sources) {
    process.stdout.write('dist/lib is newer than lib/ and the build\'s inputs: cold-plugin runs it as built\n')
    return
  }
  process.stdout.write(`dist/lib is ${built === 0 ? 'missing' : 'older than lib/'}: npm run build ...\n`)
  execFileSync('npm', ['run', 'build'], { cwd: REPO_DIR, stdio: 'inherit' })
}

async function main (): Promise<number> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      warm: { type: 'string' },
      servers: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) {
    process.stdout.write(HELP)
    return 0
  }
  const rounds = positive('rounds', values.rounds, 7)
  const warm = positive('warm', values.warm, 50)
  const servers = (values.servers?.split(',').map((s) => s.trim()) ?? [...ALL_SERVERS]) as ColdServer[]
  for (const name of servers) if (!ALL_SERVERS.includes(name)) throw new Error(`--servers: unknown "${name}" (known: ${ALL_SERVERS.join(', ')})`)
  if (servers.some((name) => FLOORS.includes(name)) && !servers.includes('cold-plugin')) throw new Error('the cold-bare floors answer the plugin\'s bytes: run them with cold-plugin')
  if (servers.includes('cold-plugin')) ensureBuilt()
  const pinning = choosePinning(values['no-pin'] !== true)

  process.stdout.write(`compiling ${servers.join(', ')} ...\n`)
  compileServers(servers)
  if (pinning.loader !== null) pinSelf(pinning.loader)

  // This process's own HTTP client is warmed and the plugin's answers captured, for the floor to give back.
  const captured: Partial<Record<Era, Answer>> = {}
  if (servers.includes('cold-plugin')) {
    const plugin = await launch('cold-plugin', { pin: pinning.server })
    try {
      for (const era of ERAS) {
        const answer = await post(plugin.port, era)
        const problems = problemsOf(answer, era)
        if (problems.length > 0) throw new Error(`cold-plugin answers the ${era} tools/call wrongly: ${problems.join('; ')}`)
        captured[era] = answer
      }
    } finally {
      await plugin.stop()
    }
  }
  const canned = (answer: Answer): ColdAnswer => ({
    status: answer.status,
    headers: { 'content-type': String(answer.headers['content-type']) },
    body: answer.bytes.toString('base64')
  })
  const bareEnv = captured.legacy === undefined || captured.modern === undefined
    ? undefined
    : { [COLD_ANSWERS_ENV]: JSON.stringify({ legacy: canned(captured.legacy), modern: canned(captured.modern) } satisfies ColdAnswers) }

  const starts = new Map<string, Start[]>()
  for (let round = 0; round < rounds; round++) {
    for (const era of ERAS) {
      for (const name of rotate(servers, round)) {
        const start = await coldStart(name, era, {
          pin: pinning.server,
          warm,
          ...(FLOORS.includes(name) ? { env: bareEnv, reference: captured[era]?.bytes } : {})
        })
        const key = `${name} ${era}`
        starts.set(key, [...(starts.get(key) ?? []), start])
        process.stdout.write(`  round ${round + 1}/${rounds} ${era.padEnd(6)} ${name.padEnd(13)} first answer ${fixed(start.firstAnswer, 0)} ms (listening ${fixed(start.listening, 0)}, first call ${fixed(start.firstCall, 1)}, warm ${fixed(start.warmCall, 2)}), CPU ${fixed(start.cpu, 0)} ms, RSS ${fixed(start.rss / 2 ** 20, 1)} MB\n`)
      }
    }
  }

  const rows: string[][] = [['era', 'server', 'spawn→answer ms', 'spawn→listening ms', 'first call ms', 'warm call ms', 'first/warm', 'RSS MB', '÷ bare', '÷ bare+typebox', '÷ tmcp', 'CPU ms', 'CPU ÷ bare', 'CPU ÷ bare+typebox']]
  for (const era of ERAS) {
    for (const name of servers) {
      const runs = starts.get(`${name} ${era}`) ?? []
      const floor = starts.get(`cold-bare ${era}`)
      const typeboxFloor = starts.get(`cold-bare-typebox ${era}`)
      const tmcp = starts.get(`cold-tmcp ${era}`)
      rows.push([
        era, name,
        fixed(median(runs.map((r) => r.firstAnswer)), 0),
        fixed(median(runs.map((r) => r.listening)), 0),
        fixed(median(runs.map((r) => r.firstCall)), 1),
        fixed(median(runs.map((r) => r.warmCall)), 2),
        fixed(median(runs.map((r) => r.firstCall / r.warmCall)), 1),
        fixed(median(runs.map((r) => r.rss)) / 2 ** 20, 1),
        floor === undefined ? 'n/a' : roundRatio(runs, floor, 'firstAnswer'),
        typeboxFloor === undefined ? 'n/a' : roundRatio(runs, typeboxFloor, 'firstAnswer'),
        tmcp === undefined ? 'n/a' : roundRatio(runs, tmcp, 'firstAnswer'),
        fixed(median(runs.map((r) => r.cpu)), 0),
        floor === undefined ? 'n/a' : roundRatio(runs, floor, 'cpu'),
        typeboxFloor === undefined ? 'n/a' : roundRatio(runs, typeboxFloor, 'cpu')
      ])
    }
  }
  process.stdout.write(`\nmedians of ${rounds} fresh starts per server and era, ${warm} warm calls each; ratios are medians of per-round ratios (range in brackets)\n\n${table(rows)}\n`)
  return 0
}

main().then((code) => { process.exitCode = code }, (error: Error) => {
  process.stderr.write(`bench:cold-start: ${error.message}\n`)
  process.exitCode = 1
})
