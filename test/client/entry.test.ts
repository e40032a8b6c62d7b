/**
 * The client entry point stays free of Fastify: every module it reaches,
 * followed through relative imports from lib/client/index.ts (client/, protocol/ and common/), imports no
 * package but `eventsource-parser` (the SSE parser the official SDK client uses, with no dependencies of its
 * own); `node:` built-ins would be tolerated, and none is used.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as client from '../../lib/client/index.js'

const libDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lib')
/** The one package the client may import. */
const ALLOWED_PACKAGES: ReadonlySet<string> = new Set(['eventsource-parser'])
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

t.test('no package imports reachable from the client entry', async t => {
  const seen = new Set<string>()
  const packages: string[] = []
  const queue = [join(libDir, 'client', 'index.ts')]
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    for (const match of source.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? ''
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      else if (!spec.startsWith('node:') && !ALLOWED_PACKAGES.has(spec)) packages.push(`${file}: ${spec}`)
    }
  }
  t.same(packages, [], 'no other package (fastify included) is imported')
  const reached = [...seen].map(f => f.slice(libDir.length + 1)).sort()
  t.ok(reached.includes('protocol/discover-result.ts') && reached.includes('client/discover.ts'), `reached: ${reached.join(', ')}`)
  t.same(reached.filter(f => !f.startsWith('client/') && !f.startsWith('protocol/') && !f.startsWith('common/')), [], 'nothing but the client, the wire protocol and the common helpers (no server-side module)')
})

t.test('the public surface of fastify-mcp-capabilities/client', async t => {
  t.same(Object.keys(client).sort(), [
    'DEFAULT_CLIENT_INFO',
    'DEFAULT_CREDENTIAL_HEADERS',
    'DEFAULT_MAX_ENTRIES',
    'DEFAULT_MAX_RESPONSE_BYTES',
    'DEFAULT_TIMEOUT_MS',
    'DiscoverAbortError',
    'DiscoverCache',
    'DiscoverError',
    'DiscoverHttpError',
    'DiscoverInvalidResultError',
    'DiscoverJsonRpcError',
    'DiscoverNetworkError',
    'DiscoverTimeoutError',
    'discover',
    'parseDiscoverResult',
    'sseEvents'
  ])
  t.equal(typeof new client.DiscoverCache().discover, 'function')
})
