/**
 * The example over stdio, started the way docs/stdio.md tells hosts to
 * (`npm --silent run start:stdio`), driven by the official SDK client's
 * stdio transport in auto mode: it lands in the modern era, lists and calls
 * tools, hears a note added by a tool on its listen stream, and the process
 * exits when the client closes stdin.
 */
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import t from 'tap'
import { REPO_ROOT } from '../helpers/paths.js'
import { childEnv, eventually } from '../stdio/helpers.js'

t.test('npm --silent run start:stdio: the notes example through the SDK client\'s stdio transport', async (t) => {
  const client = new Client({ name: 'example-stdio-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  const transport = new StdioClientTransport({ command: 'npm', args: ['--silent', 'run', 'start:stdio'], cwd: REPO_ROOT, env: childEnv({ LOG_LEVEL: 'warn' }), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  await client.connect(transport)
  let closed = false
  t.teardown(async () => { if (!closed) await client.close() })
  t.equal(client.getProtocolEra(), 'modern', 'the server/discover probe found 2026-07-28')
  t.same((await client.listTools()).tools.map((tool) => tool.name), ['add_note', 'search_notes', 'word_count'])
  const counted = await client.callTool({ name: 'word_count', arguments: { text: 'one two three' } })
  t.same(counted.structuredContent, { words: 3 })

  let changes = 0
  client.setNotificationHandler('notifications/resources/list_changed', () => { changes++ })
  await client.listen({ resourcesListChanged: true })
  await client.callTool({ name: 'add_note', arguments: { title: 'From stdio', body: 'Added over stdin.' } })
  await eventually(() => changes === 1)
  t.equal(changes, 1, 'the new note was announced on the listen stream')

  const pid = transport.pid
  await client.close()
  closed = true
  t.ok(pid !== null && pid !== undefined, 'the transport started a process')
  await eventually(() => {
    try {
      process.kill(pid as number, 0)
      return false
    } catch {
      return true
    }
  })
  t.notMatch(stderr, /"level":50/, 'no error was logged')
})
