// Guards issue 35 (cold start): fastify-plugin's `fastify: '5.x'` made
// Fastify check the range with semver at registration, the first range match
// of the process and the costliest step registration had
// (bench/cold-phases.ts). The plugin now checks the version itself
// (lib/common/fastify-version.ts); these hold its verdict to Fastify's own
// check of a `5.x` plugin, and the error to the one Fastify threw.
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import mcpCapabilities from '../../lib/index.js'
import { supportedFastifyVersion } from '../../lib/common/fastify-version.js'

function claiming (version: string): FastifyInstance {
  const app = Fastify()
  Object.defineProperty(app, 'version', { configurable: true, get: () => version })
  return app
}

/** Fastify's verdict: a fastify-plugin plugin declaring `fastify: '5.x'` registers, or fails with its error. */
async function fastifyVerdict (version: string): Promise<{ ok: boolean, error?: { code: string, message: string } }> {
  const app = claiming(version)
  app.register(fp(async () => {}, { fastify: '5.x', name: 'fastify-mcp-capabilities' }))
  try {
    await app.ready()
    return { ok: true }
  } catch (err) {
    const { code, message } = err as { code: string, message: string }
    return { ok: false, error: { code, message } }
  } finally {
    await app.close()
  }
}

const VERSIONS = [
  '5.0.0', '5.12.8', '5.99.1', '4.29.1', '3.0.0', '6.0.0', '6.1.0',
  // release candidates: past 5.0.0 Fastify lets a 5.x plugin try them, 5.0.0's own are before it
  '5.0.0-rc.1', '5.1.0-rc.1', '6.0.0-rc.1', '6.0.0-alpha.2', '6.0.0-pre.1', '4.0.0-rc.1', '5.0.1-alpha.1',
  // other prereleases are not releases of the range
  '5.1.0-beta.1', '5.2.0-next.0', '6.0.0-beta.1', '5.0.0-rc',
  // build metadata does not count, a prefix is read as semver reads it
  '5.3.0+build.7', '5.3.0+build-rc.1', '6.0.0+x-rc.1', 'v5.3.0', '=5.3.0', ' 5.3.0 ', '05.3.0',
  'not a version', '5', '5.1', ''
]

t.test('the plugin accepts the Fastify versions Fastify accepted for a 5.x plugin', async (t) => {
  for (const version of VERSIONS) {
    let verdict: Awaited<ReturnType<typeof fastifyVerdict>>
    try {
      verdict = await fastifyVerdict(version)
    } catch {
      continue // semver throws on some malformed candidates: no verdict to compare with
    }
    t.equal(supportedFastifyVersion(version), verdict.ok, JSON.stringify(version))
  }
})

t.test('a Fastify outside 5.x fails registration with the error Fastify threw', async (t) => {
  for (const version of ['4.29.1', '6.0.0', '5.1.0-beta.1']) {
    const { error } = await fastifyVerdict(version)
    if (error === undefined) {
      t.fail(`${version}: Fastify accepted a 5.x plugin`)
      continue
    }
    const app = claiming(version)
    t.teardown(() => app.close())
    app.register(mcpCapabilities, { serverInfo: { name: 'v', version: '1.0.0' }, server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) } })
    await t.rejects(async () => { await app.ready() }, error, `${version}: the same code and message`)
  }
})

t.test('Fastify 5 registers it, with no range for Fastify to check', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(mcpCapabilities, { serverInfo: { name: 'v', version: '1.0.0' }, server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) } })
  await app.ready()
  t.ok(app.hasDecorator('mcp'), 'registered')
  t.equal((mcpCapabilities as unknown as Record<symbol, { fastify?: string }>)[Symbol.for('plugin-meta')]?.fastify, undefined, 'no `fastify` range in its metadata')
})
