/**
 * The official TypeScript SDK clients over their own stdio transports,
 * launching the conformance example served with `serveStdio` as a host
 * would: v1 (@modelcontextprotocol/sdk 1.x, legacy era) and v2
 * (@modelcontextprotocol/client 2.x) in the legacy era and pinned to
 * 2026-07-28. Each lists and calls tools, reads a resource, gets a prompt,
 * receives progress, hears a list change made at run time, and answers an
 * elicitation (legacy: a server-to-client request answered on stdin;
 * modern: an input_required round).
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client, type ClientOptions } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import t from 'tap'
import { ARGS, COMMAND, childEnv, eventually } from './helpers.js'

/** What each client is asked to do, whatever its SDK. */
interface Peer {
  listToolNames (): Promise<string[]>
  callText (name: string, args?: Record<string, unknown>, onProgress?: (p: { progress: number, total?: number }) => void): Promise<string>
  readText (uri: string): Promise<string>
  promptText (name: string): Promise<string>
  /** Starts hearing tools/list_changed (modern: opens subscriptions/listen); returns how many arrived so far. */
  hearToolChanges (): Promise<() => number>
  stderr (): string
  close (): Promise<void>
}

const ELICITED = { username: 'ada', email: 'ada@example.com' }

function textOf (result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string, text?: string }>
  return content.map((c) => c.text ?? `[${c.type}]`).join('')
}

async function v1Peer (): Promise<Peer> {
  const client = new V1Client({ name: 'stdio-test-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: ELICITED }))
  const transport = new V1StdioClientTransport({ command: COMMAND, args: [...ARGS], env: childEnv(), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  await client.connect(transport)
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callText: async (name, args = {}, onprogress) => textOf(await client.callTool({ name, arguments: args }, undefined, onprogress === undefined ? {} : { onprogress }) as { content?: unknown }),
    readText: async (uri) => ((await client.readResource({ uri })).contents[0] as { text: string }).text,
    promptText: async (name) => JSON.stringify((await client.getPrompt({ name })).messages),
    hearToolChanges: async () => {
      let heard = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => { heard++ })
      return () => heard
    },
    stderr: () => stderr,
    close: () => client.close()
  }
}

async function v2Peer (options: ClientOptions): Promise<Peer> {
  const client = new Client({ name: 'stdio-test-v2', version: '1.0.0' }, { ...options, capabilities: { elicitation: { form: {} } } })
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: ELICITED }))
  const transport = new StdioClientTransport({ command: COMMAND, args: [...ARGS], env: childEnv(), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  await client.connect(transport)
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callText: async (name, args = {}, onprogress) => textOf(await client.callTool({ name, arguments: args }, onprogress === undefined ? {} : { onprogress }) as { content?: unknown }),
    readText: async (uri) => ((await client.readResource({ uri })).contents[0] as { text: string }).text,
    promptText: async (name) => JSON.stringify((await client.getPrompt({ name })).messages),
    hearToolChanges: async () => {
      let heard = 0
      client.setNotificationHandler('notifications/tools/list_changed', () => { heard++ })
      if (client.getProtocolEra() === 'modern') await client.listen({ toolsListChanged: true })
      return () => heard
    },
    stderr: () => stderr,
    close: () => client.close()
  }
}

const peers: Array<{ name: string, era: 'legacy' | 'modern', connect: () => Promise<Peer> }> = [
  { name: 'SDK v1 (1.x), legacy era', era: 'legacy', connect: v1Peer },
  { name: 'SDK v2 (2.x), legacy mode', era: 'legacy', connect: () => v2Peer({ versionNegotiation: { mode: 'legacy' } }) },
  { name: 'SDK v2 (2.x), pinned to 2026-07-28', era: 'modern', connect: () => v2Peer({ versionNegotiation: { mode: { pin: '2026-07-28' } } }) },
  { name: 'SDK v2 (2.x), auto (probes with server/discover)', era: 'modern', connect: () => v2Peer({ versionNegotiation: { mode: 'auto' } }) }
]

for (const { name, connect } of peers) {
  await t.test(name, async (t) => {
    const peer = await connect()
    let closed = false
    t.teardown(async () => { if (!closed) await peer.close() })

    const tools = await peer.listToolNames()
    t.ok(tools.includes('test_simple_text') && tools.includes('test_elicitation'), 'tools/list')
    t.equal(await peer.callText('test_simple_text'), 'This is a simple text response for testing.', 'tools/call')
    t.equal(await peer.readText('test://static-text'), 'This is the content of the static text resource.', 'resources/read')
    t.match(await peer.promptText('test_simple_prompt'), /This is a simple prompt for testing\./, 'prompts/get')

    const progress: number[] = []
    t.equal(await peer.callText('test_tool_with_progress', {}, (p) => progress.push(p.progress)), 'Tool with progress executed successfully')
    // The last one shares a read with the result, and the SDKs run notification handlers a
    // microtask after the response that ends the call, so they may drop it; the raw order
    // on stdout is checked in process.test.ts.
    t.same(progress.slice(0, 2), [0, 50], 'progress notifications, in order, before the result')

    const heard = await peer.hearToolChanges()
    await peer.callText('test_trigger_tool_change')
    await eventually(() => heard() === 1)
    t.equal(heard(), 1, 'notifications/tools/list_changed after a change made at run time')

    t.equal(await peer.callText('test_elicitation', { message: 'Who are you?' }),
      `User response: action=accept, content=${JSON.stringify(ELICITED)}`, 'the elicitation was answered by the client')

    await peer.close()
    closed = true
    await eventually(() => peer.stderr().includes('onClose hook ran'))
    t.match(peer.stderr(), /stray console\.log/, 'a stray console.log went to stderr')
  })
}
