/**
 * The official SDK client (@modelcontextprotocol/client 2.4.0) against the
 * conformance example in each deployment era: in legacy mode offering each
 * legacy version, in `auto` mode, and pinned to 2026-07-28. It must land in
 * the era the deployment and the client can agree on (docs/protocol.md "Eras"),
 * see exactly the capabilities the plugin built for that era, and be able to
 * list and call tools; where they cannot agree, connecting fails.
 */
import { Client, type ClientOptions, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildConformanceApp, SERVER_INFO, type ConformanceEra } from '../../examples/conformance-server.js'
import { LEGACY_VERSIONS, MODERN_VERSIONS } from '../../lib/index.js'

type Era = 'legacy' | 'modern'

interface ClientMode {
  name: string
  options: ClientOptions
  /** Where this client lands against a deployment, or null when they cannot agree. */
  expect: (deployment: ConformanceEra) => { era: Era, version: string } | null
  /** Checks the connect error when they cannot agree. */
  refusal?: (t: Test, err: unknown) => void
}

const MODERN = MODERN_VERSIONS[0]
// `auto` falls back to `initialize` offering the first legacy version the client supports.
const AUTO_LEGACY = SUPPORTED_PROTOCOL_VERSIONS.find((v) => (LEGACY_VERSIONS as readonly string[]).includes(v))
t.ok(AUTO_LEGACY, 'the SDK client supports a legacy version the plugin serves')

const modes: ClientMode[] = [
  ...LEGACY_VERSIONS.map((version): ClientMode => ({
    name: `legacy mode offering ${version}`,
    options: { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [version] },
    expect: (deployment) => deployment === 'modern' ? null : { era: 'legacy', version },
    // A modern-only deployment answers a legacy initialize with 400 and -32022 naming what it speaks.
    refusal: (t, err) => {
      t.ok(err instanceof SdkHttpError, 'an HTTP error', { err })
      if (!(err instanceof SdkHttpError)) return
      t.equal(err.status, 400, 'HTTP 400')
      t.match(JSON.parse(String(err.data.text)), {
        error: { code: -32022, data: { supported: [...MODERN_VERSIONS], requested: version } }
      }, 'UnsupportedProtocolVersion with the supported and requested versions')
    }
  })),
  {
    name: 'auto mode',
    options: { versionNegotiation: { mode: 'auto' } },
    expect: (deployment) => deployment === 'legacy' ? { era: 'legacy', version: AUTO_LEGACY ?? '' } : { era: 'modern', version: MODERN }
  },
  {
    name: `pinned to ${MODERN}`,
    options: { versionNegotiation: { mode: { pin: MODERN } } },
    expect: (deployment) => deployment === 'legacy' ? null : { era: 'modern', version: MODERN },
    // A legacy-only deployment must not answer server/discover as a modern server would.
    refusal: (t, err) => {
      t.ok(err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed, 'era negotiation fails', { err })
    }
  }
]

async function serve (era: ConformanceEra): Promise<{ app: FastifyInstance, url: URL }> {
  const app = await buildConformanceApp({ era })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url: new URL('/mcp', address) }
}

for (const deployment of ['legacy', 'modern', 'dual'] as const) {
  await t.test(`${deployment} deployment`, async (t) => {
    const { app, url } = await serve(deployment)
    t.teardown(() => app.close())

    for (const mode of modes) {
      await t.test(mode.name, async (t) => {
        const client = new Client({ name: 'sdk-client-test', version: '1.0.0' }, mode.options)
        t.teardown(() => client.close())
        const expected = mode.expect(deployment)

        if (expected === null) {
          const err = await client.connect(new StreamableHTTPClientTransport(url)).then(() => null, (e: unknown) => e)
          t.not(err, null, 'connecting fails: the client and the deployment cannot agree on an era')
          mode.refusal?.(t, err)
          t.equal(client.getProtocolEra(), undefined, 'no era was negotiated')
          return
        }

        await client.connect(new StreamableHTTPClientTransport(url))
        t.equal(client.getProtocolEra(), expected.era, `lands in the ${expected.era} era`)
        t.equal(client.getNegotiatedProtocolVersion(), expected.version, `negotiates ${expected.version}`)
        t.same(client.getServerCapabilities(), app.mcp.capabilities[expected.era], 'sees the capabilities the plugin built for that era')
        t.match(client.getServerVersion(), SERVER_INFO, 'sees the server info')
        if (expected.era === 'modern') {
          t.same(client.getDiscoverResult()?.supportedVersions, [...MODERN_VERSIONS], 'discover names the modern versions served')
        }

        const { tools } = await client.listTools()
        t.ok(tools.some((tool) => tool.name === 'test_simple_text'), 'tools/list includes the fixture tools')
        const result = await client.callTool({ name: 'test_simple_text', arguments: {} })
        t.same(result.content, [{ type: 'text', text: 'This is a simple text response for testing.' }], 'tools/call returns the tool result')
        const failed = await client.callTool({ name: 'test_error_handling', arguments: {} })
        t.equal(failed.isError, true, 'a tool error comes back as isError')
      })
    }
  })
}
