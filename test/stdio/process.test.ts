/**
 * The stdio server as a host sees the process: stdout carries JSON-RPC
 * messages and nothing else (the fixture console.logs after serveStdio),
 * in the order the endpoint wrote them; a malformed line and an over-long
 * line are answered and the stream goes on; the process exits by itself
 * when stdin ends, after the app's onClose hooks ran; SIGTERM closes it too,
 * and still ends it when another library's listener holds the signal.
 */
import { spawn } from 'node:child_process'
import t from 'tap'
import { ARGS, COMMAND, childEnv } from './helpers.js'

interface Run {
  lines: string[]
  stderr: string
  code: number | null
  signal: NodeJS.Signals | null
}

/** Starts the fixture, writes `input` (then `after(child)`), and collects everything until it exits. */
function run (input: string[], after: (stdin: NodeJS.WritableStream, kill: (signal: NodeJS.Signals) => void, stdout: () => string) => void, env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(COMMAND, [...ARGS], { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  for (const line of input) child.stdin.write(line + '\n')
  after(child.stdin, (signal) => child.kill(signal), () => stdout)
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      resolve({ lines: stdout.split('\n').filter((line) => line !== ''), stderr, code, signal })
    })
  })
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })

t.test('stdin ends: every answer written, only JSON-RPC on stdout, onClose ran, exit code 0', async (t) => {
  const tooLong = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'test_simple_text', arguments: { pad: 'x'.repeat(1024 * 1024) } } })
  const result = await run([
    INITIALIZE,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    'this is not JSON',
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } } }),
    tooLong,
    JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } })
  ], (stdin) => { stdin.end() })
  t.equal(result.code, 0, 'exits by itself, code 0')
  const messages = result.lines.map((line) => JSON.parse(line) as Record<string, any>)
  t.ok(messages.every((m) => m.jsonrpc === '2.0'), 'every stdout line is a JSON-RPC 2.0 message')
  t.match(messages.find((m) => m.id === 1), { result: { protocolVersion: '2025-11-25' } })
  t.strictSame(messages.find((m) => m.id === undefined && m.error !== undefined), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: body is not valid JSON' } })
  t.strictSame(messages.find((m) => m.id === 4), { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Request body is too large (more than 1048576 bytes)' } },
    'the over-long line is refused with its id')
  t.match(messages.find((m) => m.id === 3), { result: { content: [{ text: 'This is a simple text response for testing.' }] } }, 'the stream went on')
  const ofCall = messages.filter((m) => m.params?.progressToken === 'p' || m.id === 2)
  t.same(ofCall.map((m) => m.id === 2 ? 'result' : m.params.progress), [0, 50, 100, 'result'], 'progress in order, then the result')
  t.match(result.stderr, /stray console\.log/, 'console.log went to stderr')
  t.match(result.stderr, /onClose hook ran/, 'the app was closed')
})

/** Sends SIGTERM once the initialize answer is out. */
function terminateAfterInitialize (_stdin: NodeJS.WritableStream, kill: (signal: NodeJS.Signals) => void, stdout: () => string): void {
  const wait = setInterval(() => {
    if (stdout().includes('"id":1')) {
      clearInterval(wait)
      kill('SIGTERM')
    }
  }, 10)
}

t.test('SIGTERM: the app closes and the process ends with the signal', async (t) => {
  const result = await run([INITIALIZE], terminateAfterInitialize)
  t.equal(result.signal, 'SIGTERM', 'ended by the signal', { code: result.code, stderr: result.stderr })
  t.match(result.stderr, /onClose hook ran/)
  t.equal(result.lines.length, 1, 'only the initialize answer was written')
})

t.test('SIGTERM while another library also listens for it: the process still ends, never with code 0', async (t) => {
  const result = await run([INITIALIZE], terminateAfterInitialize, { STDIO_OTHER_SIGTERM_LISTENER: '1' })
  t.match(result.stderr, /onClose hook ran/)
  t.match(result.stderr, /other listener heard SIGTERM/)
  t.equal(result.signal, null, 'the other listener kept the signal from ending it')
  t.equal(result.code, 143, "the shell's code for SIGTERM", { stderr: result.stderr })
})
