/**
 * An MCP App on Fastify: the notes service with a notes board, an HTML app
 * (examples/apps/notes-board.html, using the ext-apps `App` class, inlined)
 * that the host renders in a sandboxed iframe when the model calls
 * `show_notes`. The board adds notes through `add_note_from_app`, a tool only
 * apps may call (`visibility: ["app"]`, hidden from the model by the host).
 *
 *   npm run start:apps                  # http://127.0.0.1:3000/mcp, both eras
 *   HOST=127.0.0.1 PORT=8080 MCP_ERA=modern npm run start:apps
 *
 * Hosts without MCP Apps see `show_notes` as a plain tool answering text.
 */
import { Type } from '../lib/typebox/index.js'
import Fastify, { type FastifyInstance } from 'fastify'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import mcpCapabilities, { appTool, type DeploymentEra, defineAppResources, defineTools, type ServerModule } from '../lib/index.js'
import { extAppsScript } from './apps/ext-apps-inline.js'
import { NoteStore } from './server.js'

export const BOARD_URI = 'ui://notes/board'

/** The board's HTML: the page with the ext-apps browser build in its module script. */
export function boardHtml (): string {
  const page = readFileSync(new URL('./apps/notes-board.html', import.meta.url), 'utf8')
  return page.replace('/*EXT_APPS*/', () => extAppsScript())
}

function noteLines (notes: Array<{ id: string, title: string, body: string }>): string {
  return notes.length === 0 ? 'No notes.' : notes.map((n) => `${n.id}. ${n.title}: ${n.body}`).join('\n')
}

export function appsServer (store: NoteStore) {
  const summary = () => store.all().map(({ id, title, body }) => ({ id, title, body }))
  return {
    ...defineTools({
      show_notes: appTool({
        ui: { resourceUri: BOARD_URI },
        title: 'Show notes',
        description: 'Shows the notes on an interactive board where the user can add notes.',
        annotations: { readOnlyHint: true },
        // The text is for the model and for hosts without apps; structuredContent feeds the board.
        handler: () => ({ content: [{ type: 'text', text: noteLines(summary()) }], structuredContent: { notes: summary() } })
      }),
      add_note_from_app: appTool({
        ui: { resourceUri: BOARD_URI, visibility: ['app'] },
        title: 'Add a note (board)',
        description: 'Adds a note from the notes board.',
        input: Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), body: Type.String({ maxLength: 10_000 }) }),
        handler: ({ title, body }) => {
          const note = store.add(title, body, [])
          return {
            content: [{ type: 'text', text: `Added note ${note.id}: ${note.title}` }],
            structuredContent: { added: { id: note.id, title: note.title }, notes: summary() }
          }
        }
      })
    }),
    ...defineAppResources({
      board: {
        uri: BOARD_URI,
        title: 'Notes board',
        description: 'Lists the notes and adds new ones.',
        // Everything is inline: the host's default CSP (no outside origin) is enough.
        prefersBorder: true,
        html: boardHtml()
      }
    })
  } satisfies ServerModule
}

export async function buildAppsServer ({ era = 'dual', store = new NoteStore() }: { era?: DeploymentEra, store?: NoteStore } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })
  await app.register(mcpCapabilities, {
    server: appsServer(store),
    serverInfo: { name: 'notes-apps-example', title: 'Notes board (MCP Apps example)', version: '1.0.0' },
    era,
    instructions: 'A notes service with an interactive board: call show_notes to show it.'
  })
  return app
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const host = process.env.HOST ?? '127.0.0.1'
  const port = Number(process.env.PORT ?? 3000)
  const app = await buildAppsServer({ era: (process.env.MCP_ERA ?? 'dual') as DeploymentEra })
  await app.listen({ host, port })
}
