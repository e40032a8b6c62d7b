/**
 * The Node.js pitfall lib/response/tick-shapes.ts works around, shown on demand:
 * `process.nextTick` gets slower for the rest of the process when a full GC
 * runs while its queue is empty, unless one queue entry is kept alive.
 *
 *   npm run bench:next-tick
 *
 * Three fresh processes (each on one core when taskset is there), the same
 * steps, one difference each:
 *   - clean: nextTick used, queue drained, no full GC;
 *   - gc:    the same, then a full GC (`--expose-gc`);
 *   - kept:  `keepTickShapesAlive()` first, then the same as gc.
 * Each then schedules ROUNDS x BATCH nextTick calls and reports the CPU time
 * per call. The rounds alternate between the processes; the table shows
 * medians and the ratios to clean.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const VARIANTS = ['clean', 'gc', 'kept'] as const
type Variant = typeof VARIANTS[number]
const ROUNDS = Number(process.env.ROUNDS ?? 9)
const BATCH = Number(process.env.BATCH ?? 200_000)

interface Sample { variant: Variant, nsPerCall: number }

// ---------------------------------------------------------------------------
// Child: prepare as told, then time batches of nextTick calls on request.

async function child (variant: Variant): Promise<void> {
  if (variant === 'kept') {
    const { keepTickShapesAlive } = await import('../lib/response/tick-shapes.js')
    keepTickShapesAlive()
  }
  // Use nextTick the way a starting server does, let the queue drain...
  for (let i = 0; i < 500; i++) await new Promise<void>((resolve) => process.nextTick(resolve))
  await new Promise((resolve) => setTimeout(resolve, 20))
  // ...then the full collection a growing startup heap would bring.
  if (variant !== 'clean') (globalThis as unknown as { gc: () => void }).gc()

  const noop = (): void => {}
  process.on('message', async () => {
    const start = process.cpuUsage()
    let scheduled = 0
    while (scheduled < BATCH) {
      // Batches of 1,000 calls, drained between batches like a busy server's ticks.
      for (let i = 0; i < 1000; i++) process.nextTick(noop)
      scheduled += 1000
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    const used = process.cpuUsage(start)
    process.send?.({ nsPerCall: ((used.user + used.system) * 1000) / BATCH })
  })
  process.send?.({ ready: true })
}

// ---------------------------------------------------------------------------
// Runner

function pinnable (): boolean {
  if (availableParallelism() < 2) return false
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function start (variant: Variant, pin: boolean): Promise<ChildProcess> {
  const self = fileURLToPath(import.meta.url)
  const args = ['--expose-gc', '--import', 'tsx', self, variant]
  const proc = pin
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    proc.once('error', reject)
    proc.once('exit', (code) => reject(new Error(`${variant} exited early (code ${code})`)))
    proc.once('message', () => resolve(proc))
  })
}

function time (proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    proc.once('message', (message: { nsPerCall: number }) => resolve(message.nsPerCall))
    proc.send({ run: true })
  })
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

async function main (): Promise<void> {
  const pin = pinnable()
  const procs = new Map<Variant, ChildProcess>()
  for (const variant of VARIANTS) procs.set(variant, await start(variant, pin))
  const samples: Sample[] = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()
      for (const variant of order) samples.push({ variant, nsPerCall: await time(procs.get(variant) as ChildProcess) })
    }
  } finally {
    for (const proc of procs.values()) {
      proc.removeAllListeners('exit')
      proc.kill()
    }
  }
  const clean = median(samples.filter((s) => s.variant === 'clean').map((s) => s.nsPerCall))
  process.stdout.write(`process.nextTick CPU time per call, medians of ${ROUNDS} rounds x ${BATCH} calls${pin ? ' (pinned to core 1)' : ''}\n\n`)
  for (const variant of VARIANTS) {
    const values = samples.filter((s) => s.variant === variant).map((s) => s.nsPerCall)
    process.stdout.write(`  ${variant.padEnd(6)} ${median(values).toFixed(1).padStart(6)} ns   ${(median(values) / clean).toFixed(2)}x clean   (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})\n`)
  }
}

const variant = process.argv[2]
if (VARIANTS.includes(variant as Variant)) {
  await child(variant as Variant)
} else {
  await main()
}
