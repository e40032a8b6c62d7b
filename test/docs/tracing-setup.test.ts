/**
 * The setup snippets of docs/tracing.md run (issue 34, item 8): the console
 * one prints the `tools/call ping` span with the `service.name` it set, and
 * the OTLP one sends its spans to a collector (here a local HTTP server
 * standing in for one on 127.0.0.1). Each runs in its own process, as
 * written, but for the port, the collector's URL and a call appended at the end.
 */
import { createServer } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { REPO_ROOT } from '../helpers/paths.js'
import { runSnippet, typeScriptBlocks, withLocalImports } from '../helpers/doc-snippet.js'

const PAGE = 'docs/tracing.md'
/** Calls the snippet's tool once in-process, then closes the app and flushes the provider. */
const CALL_AND_CLOSE = `
const { injectClient } = await import('${join(REPO_ROOT, 'lib/testing/index.ts')}')
const called = await injectClient(app, { era: 'modern' }).callTool('ping', {})
console.log('CALLED', JSON.stringify(called.content))
await app.close()
await provider.shutdown()
`

function runnable (code: string): string {
  t.match(code, /port: 3000/, 'the snippet listens on the documented port')
  return withLocalImports(code).replace('port: 3000', 'port: 0') + CALL_AND_CLOSE
}

t.test('the console exporter prints the span with the service name', async (t) => {
  const [block] = typeScriptBlocks(PAGE, 'ConsoleSpanExporter')
  if (block === undefined) return t.fail('docs/tracing.md has a block with ConsoleSpanExporter')
  const { stdout } = await runSnippet(runnable(block.code))
  t.match(stdout, /CALLED \[\{"type":"text","text":"pong"\}\]/, 'the tool answered')
  t.match(stdout, /'service\.name': 'bookshelf'/, 'the span carries the service name')
  t.match(stdout, /name: 'tools\/call ping'/, 'the span is the MCP operation')
  t.notMatch(stdout, /unknown_service/, 'no unknown_service')
})

t.test('the OTLP exporter sends the span to the collector', async (t) => {
  const [block] = typeScriptBlocks(PAGE, 'OTLPTraceExporter')
  if (block === undefined) return t.fail('docs/tracing.md has a block with OTLPTraceExporter')
  const received: Array<{ url: string | undefined, body: string }> = []
  const collector = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({ url: request.url, body: Buffer.concat(chunks).toString('utf8') })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { collector.close() })
  const url = `http://127.0.0.1:${(collector.address() as { port: number }).port}/v1/traces`
  const code = runnable(block.code)
  t.match(code, 'http://127.0.0.1:4318/v1/traces', 'the snippet names the collector')
  await runSnippet(code.replace('http://127.0.0.1:4318/v1/traces', url))
  const spans = received.filter((r) => r.url === '/v1/traces').map((r) => r.body).join('\n')
  t.match(spans, /"service\.name".*"bookshelf"/s, 'the export carries the service name')
  t.match(spans, /tools\/call ping/, 'and the span')
})
