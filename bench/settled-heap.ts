/**
 * The heap (with array buffers) once garbage collection has settled: what a
 * memory scenario compares before and after. gc is exposed here, so the
 * benches need no `--expose-gc` flag.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

export async function settledHeap (): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}
