/**
 * Runs `examples/conformance-server.ts` the way `npm run start:conformance`
 * does (Node 20 + tsx, configured by HOST, PORT, MCP_ERA) on a free loopback
 * port, and reads the endpoint URL it prints.
 */
import { startExample } from '../helpers/server-process.js'
import { REPO_DIR } from './node22.js'

export { cleanEnv } from '../helpers/server-process.js'

export interface ExampleProcess {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string
  /** Everything the process wrote so far (for failure messages). */
  output: () => string
  close: () => Promise<void>
}

/** `env` adds to HOST, PORT, MCP_ERA and LOG_LEVEL (e.g. REDIS_URL). */
export async function startConformanceExample (era: 'legacy' | 'modern' | 'dual' = 'dual', env: Record<string, string> = {}): Promise<ExampleProcess> {
  const started = await startExample(REPO_DIR, 'conformance-server.ts', { MCP_ERA: era, LOG_LEVEL: 'warn', ...env }, (output) => {
    const match = /MCP endpoint \((\w+)\): (http:\/\/\S+)/.exec(output)
    return match === null ? undefined : { era: match[1], url: match[2] ?? '' }
  })
  if (started.ready.era !== era) {
    await started.stop()
    throw new Error(`the example serves era ${String(started.ready.era)}, expected ${era}`)
  }
  return { url: started.ready.url, output: started.output, close: started.stop }
}
