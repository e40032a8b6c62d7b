/**
 * The client code of docs/streaming-and-logging.md ("Hearing changes in a
 * client") hears a runtime change (issue 34, item 5): each block runs as
 * written in its own process (the official SDK client v1 with `listChanged`,
 * legacy era, on its GET stream; the SDK client v2 with `listen` and its
 * filter, modern era) against the example server on 127.0.0.1, and prints
 * the new tool list once the server adds a tool.
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { buildExampleServer } from '../../examples/server.js'
import { startSnippet, typeScriptBlocks } from '../helpers/doc-snippet.js'

const PAGE = 'docs/streaming-and-logging.md'
const DOCUMENTED_URL = 'http://127.0.0.1:3000/mcp'
/** Appended to a block: says it is connected, then keeps the process alive while the test acts. */
const STAY = "\nconsole.log('CONNECTED')\nawait new Promise((resolve) => setTimeout(resolve, 60_000))\n"

let added = 0
for (const [name, marker] of [['the SDK client v1 with listChanged (legacy GET stream)', 'listChanged: {'], ['the SDK client v2 with listen (modern)', 'client.listen(']] as const) {
  t.test(name, async (t) => {
    const [block] = typeScriptBlocks(PAGE, marker)
    if (block === undefined) return t.fail(`${PAGE} has a block with ${marker}`)
    t.match(block.code, DOCUMENTED_URL, 'the block connects to the documented URL')
    const app = await buildExampleServer()
    t.teardown(() => app.close())
    const origin = await app.listen({ host: '127.0.0.1', port: 0 })
    const snippet = startSnippet(block.code.replaceAll(DOCUMENTED_URL, `${origin}/mcp`) + STAY)
    t.teardown(snippet.stop)
    await snippet.waitFor(/CONNECTED/)
    t.notMatch(snippet.output(), /tools now/, 'no change heard before one is made')
    const tool = `shout_${++added}`
    app.mcp.tools.add(tool, { input: Type.Object({ say: Type.String() }), handler: ({ say }: { say: string }) => ({ content: [{ type: 'text' as const, text: say.toUpperCase() }] }) })
    const [line] = await snippet.waitFor(new RegExp(`tools now .*${tool}`, 's'))
    t.match(line, /word_count/, 'the re-listed tools include the existing ones and the new one')
  })
}
