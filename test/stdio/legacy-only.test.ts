/**
 * A deployment that serves the legacy era only, with sessions, over stdio,
 * as the official SDK clients see it through their own stdio transports:
 * `resources/subscribe` works (the connection carries the `Mcp-Session-Id`
 * its `initialize` was given), and `notifications/resources/updated` and
 * `notifications/tools/list_changed` arrive on the endpoint's legacy
 * standalone stream, which the connection opens itself
 * (lib/stdio/legacy-stream.ts); nothing of it needs the modern era.
 */
import { fileURLToPath } from 'node:url'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import t from 'tap'
import { childEnv, eventually } from './helpers.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/legacy-only.ts', import.meta.url))
const ARGS = ['--import', 'tsx', FIXTURE]

/** What each client is asked to do, whatever its SDK. */
interface Peer {
  /** The notifications heard so far, in order: `<method> <uri?>`. */
  readonly heard: string[]
  subscribe (uri: string): Promise<void>
  unsubscribe (uri: string): Promise<void>
  callText (name: string): Promise<string>
  readText (uri: string): Promise<string>
  capabilities (): Record<string, unknown> | undefined
  close (): Promise<void>
}

function textOf (result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('')
}

async function v1Peer (): Promise<Peer> {
  const heard: string[] = []
  const client = new V1Client({ name: 'legacy-only-v1', version: '1.0.0' }, { capabilities: {} })
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { heard.push(`${n.method} ${n.params.uri}`) })
  client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => { heard.push(n.method) })
  await client.connect(new V1StdioClientTransport({ command: process.execPath, args: ARGS, env: childEnv(), stderr: 'inherit' }))
  return {
    heard,
    subscribe: async (uri) => { await client.subscribeResource({ uri }) },
    unsubscribe: async (uri) => { await client.unsubscribeResource({ uri }) },
    callText: async (name) => textOf(await client.callTool({ name, arguments: {} }) as { content?: unknown }),
    readText: async (uri) => ((await client.readResource({ uri })).contents[0] as { text: string }).text,
    capabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    close: () => client.close()
  }
}

async function v2Peer (): Promise<Peer> {
  const heard: string[] = []
  const client = new Client({ name: 'legacy-only-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } })
  client.setNotificationHandler('notifications/resources/updated', (n) => { heard.push(`${n.method} ${n.params.uri}`) })
  client.setNotificationHandler('notifications/tools/list_changed', (n) => { heard.push(n.method) })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ARGS, env: childEnv(), stderr: 'inherit' }))
  return {
    heard,
    subscribe: async (uri) => { await client.subscribeResource({ uri }) },
    unsubscribe: async (uri) => { await client.unsubscribeResource({ uri }) },
    callText: async (name) => textOf(await client.callTool({ name, arguments: {} }) as { content?: unknown }),
    readText: async (uri) => ((await client.readResource({ uri })).contents[0] as { text: string }).text,
    capabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    close: () => client.close()
  }
}

const UPDATED = 'notifications/resources/updated test://counter'
const TOOLS_CHANGED = 'notifications/tools/list_changed'

for (const [name, connect] of [['SDK v1 (1.x)', v1Peer], ['SDK v2 (2.x), legacy mode', v2Peer]] as const) {
  t.test(`${name}, era 'legacy' with sessions`, async (t) => {
    const peer = await connect()
    t.teardown(() => peer.close())
    t.match(peer.capabilities(), { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
      'initialize advertises what the endpoint advertises over HTTP')

    await peer.subscribe('test://counter')
    t.equal(await peer.callText('bump'), 'counter is 1')
    await eventually(() => peer.heard.includes(UPDATED))
    t.equal(await peer.readText('test://counter'), '1', 'the client re-reads what it was told changed')

    t.equal(await peer.callText('announce_tools'), 'announced')
    await eventually(() => peer.heard.includes(TOOLS_CHANGED))

    await peer.unsubscribe('test://counter')
    await peer.callText('bump')
    // The stream is ordered: once the list change sent after the bump arrives, an update for it would have too.
    await peer.callText('announce_tools')
    await eventually(() => peer.heard.filter((m) => m === TOOLS_CHANGED).length === 2)
    t.same(peer.heard, [UPDATED, TOOLS_CHANGED, TOOLS_CHANGED], 'one update while subscribed, none after unsubscribing')
  })
}
