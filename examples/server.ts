/**
 * A small, realistic MCP server on Fastify: a notes service with tools,
 * resources (a URI template listing every note), prompts and completions,
 * all defined from TypeBox schemas: arguments are validated before a handler
 * runs and handlers are typed from the schemas; and a skill (the Skills
 * extension, modern era) teaching an agent the note-taking workflow.
 *
 *   npm start                          # http://127.0.0.1:3000/mcp, both eras
 *   npm run --silent start:stdio       # the same server over stdin/stdout, for hosts that launch it (docs/stdio.md)
 *   HOST=127.0.0.1 PORT=8080 MCP_ERA=modern npm start
 *   VALIDATE_RESULTS=1 npm start       # check every result against the wire schemas
 *   MCP_AUTH_ISSUER=https://auth.example.com npm start   # bearer tokens required (see README, Authorization)
 *
 * With MCP_AUTH_ISSUER every request needs an access token from that
 * authorization server (its JWKS found through
 * <issuer>/.well-known/oauth-authorization-server) whose audience is
 * MCP_RESOURCE_URL (default http://HOST:PORT/mcp); add_note also needs the
 * scope notes:write.
 */
import { Type } from '../lib/typebox/index.js'
import Fastify, { type FastifyInstance } from 'fastify'
import { pathToFileURL } from 'node:url'
import { scaleFromEnv } from './scale-from-env.js'
import mcpCapabilities, {
  type AuthorizationOptions,
  type DeploymentEra,
  type McpCapabilitiesOptions,
  type ValidateOptions,
  definePrompts,
  defineResources,
  defineSkills,
  defineTools,
  ErrorCode,
  McpError,
  resourceLink,
  resourceNotFound,
  type ServerModule,
  serveStdio
} from '../lib/index.js'

interface Note { id: string, title: string, body: string, tags: string[] }

function noteUri (id: string): string {
  return `notes://note/${encodeURIComponent(id)}`
}

const DEFAULT_NOTES: Note[] = [
  { id: '1', title: 'Welcome', body: 'This server stores notes. Try the search_notes tool.', tags: ['intro'] },
  { id: '2', title: 'Shopping', body: 'Milk, eggs, coffee.', tags: ['home'] }
]

/** The notes themselves; `onAdded` lets the app tell listening clients. */
export class NoteStore {
  readonly #notes = new Map<string, Note>()
  onAdded: (uri: string) => void = () => {}

  constructor (seed: Note[] = DEFAULT_NOTES) {
    for (const note of seed) this.#notes.set(note.id, { ...note, tags: [...note.tags] })
  }

  add (title: string, body: string, tags: string[]): Note {
    const note = { id: String(this.#notes.size + 1), title, body, tags }
    this.#notes.set(note.id, note)
    this.onAdded(noteUri(note.id))
    return note
  }

  get (id: string): Note | undefined {
    return this.#notes.get(id)
  }

  all (): Note[] {
    return [...this.#notes.values()]
  }

  /** Ids starting with what the user typed (for completions). */
  idsStartingWith (prefix: string): string[] {
    return [...this.#notes.keys()].filter((id) => id.startsWith(prefix))
  }
}

/** The note-taking workflow as an Agent Skill: its SKILL.md, and a reference file it points to. */
export const NOTE_TAKING_SKILL = {
  'SKILL.md': `---
name: note-taking
description: Take, find and summarise notes with this server's tools. Use when the user wants to remember, look up or review something.
metadata:
  version: "1.0"
---

# Note-taking

1. Before adding a note, call \`search_notes\` with its key words: update rather than duplicate.
2. Add it with \`add_note\`: a short title, the body in plain sentences, tags from
   [the style guide](references/note-style.md).
3. To review notes, read each \`notes://note/{id}\` resource, then use the
   \`summarise_note\` prompt.
`,
  'references/note-style.md': `# Note style

- Titles: five words at most, no trailing period.
- Tags: lowercase, singular (\`shopping\`, \`idea\`, \`meeting\`).
- One topic per note.
`
}

/** The server module: define helpers spread side by side; the plugin derives capabilities from the handlers. */
export function notesServer (store: NoteStore) {
  const link = (note: Note) => resourceLink({ uri: noteUri(note.id), name: note.title, mimeType: 'text/markdown' })

  return {
    ...defineTools({
      add_note: {
        title: 'Add a note',
        description: 'Stores a note and returns its URI.',
        // with authorization on, a token needs this scope to add notes
        scopes: ['notes:write'],
        input: Type.Object({
          title: Type.String({ minLength: 1 }),
          body: Type.String(),
          tags: Type.Optional(Type.Array(Type.String()))
        }),
        handler: ({ title, body, tags }, ctx) => {
          const note = store.add(title, body, tags ?? [])
          ctx.logger.info({ id: note.id }, 'note added')
          // Sent to the client when it asked for info or lower: modern per request (_meta logLevel), legacy with logging/setLevel.
          ctx.log('info', { added: note.id }, 'notes')
          return { content: [link(note)] }
        }
      },
      search_notes: {
        title: 'Search notes',
        description: 'Finds notes whose title, body or tags contain the query (case-insensitive).',
        input: Type.Object({ query: Type.String() }),
        annotations: { readOnlyHint: true },
        handler: ({ query }) => {
          const q = query.toLowerCase()
          const hits = store.all().filter((n) =>
            n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q) || n.tags.some((t) => t.includes(q)))
          return { content: hits.length === 0 ? [{ type: 'text', text: 'No notes match.' }] : hits.map(link) }
        }
      },
      word_count: {
        title: 'Count words',
        description: 'Counts the words of a text.',
        input: Type.Object({ text: Type.String() }),
        output: Type.Object({ words: Type.Integer() }),
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length })
      }
    }),

    ...defineResources({
      note: {
        uriTemplate: 'notes://note/{id}',
        title: 'A note by id',
        mimeType: 'text/markdown',
        // every note also appears in resources/list
        list: () => store.all().map((n) => ({ uri: noteUri(n.id), name: n.title, mimeType: 'text/markdown' })),
        complete: { id: (value) => store.idsStartingWith(value) },
        read: ({ id }, uri) => {
          const note = store.get(id)
          if (note === undefined) throw resourceNotFound(uri)
          return `# ${note.title}\n\n${note.body}\n`
        }
      }
    }),

    ...definePrompts({
      summarise_note: {
        title: 'Summarise a note',
        description: 'Asks the model for a short summary of one note.',
        arguments: Type.Object({ id: Type.String({ description: 'The note id' }) }),
        complete: { id: (value) => store.idsStartingWith(value) },
        handler: ({ id }) => {
          const note = store.get(id)
          if (note === undefined) throw new McpError(ErrorCode.InvalidParams, 'Argument "id" must name an existing note')
          return {
            description: `Summary of "${note.title}"`,
            messages: [{ role: 'user', content: { type: 'text', text: `Summarise this note in two sentences:\n\n${note.body}` } }]
          }
        }
      }
    }),

    // Served at skill://note-taking/SKILL.md (skills/list, skills/get, resources/read).
    ...defineSkills({ 'note-taking': { files: NOTE_TAKING_SKILL } })
  } satisfies ServerModule
}

export interface ExampleOptions {
  era?: DeploymentEra
  /** Served over stdio: logs go to stderr, stdout carries only MCP messages. */
  stdio?: boolean
  /** `validate.results` checks every handler result against its wire schema (the tests turn it on). */
  validate?: ValidateOptions
  /** Require bearer tokens (see README, Authorization); open when absent. */
  authorization?: AuthorizationOptions
}

/** The example's `authorization` from the environment: MCP_AUTH_ISSUER turns it on. */
export function authorizationFromEnv (env: NodeJS.ProcessEnv, host: string, port: number): AuthorizationOptions | undefined {
  const issuer = env.MCP_AUTH_ISSUER
  if (issuer === undefined || issuer === '') return undefined
  return {
    resource: env.MCP_RESOURCE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    authorizationServers: [issuer],
    scopesSupported: ['notes:write'],
    resourceName: 'Notes (example)'
  }
}

export async function buildExampleServer ({ era = 'dual', validate, authorization, scale, stdio = false }: ExampleOptions & { scale?: Pick<McpCapabilitiesOptions, 'scale' | 'requestState'> } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info', ...(stdio ? { stream: process.stderr } : {}) } })
  const store = new NoteStore()
  await app.register(mcpCapabilities, {
    server: notesServer(store),
    serverInfo: { name: 'notes-example', title: 'Notes (example)', version: '1.0.0' },
    era,
    ...(validate === undefined ? {} : { validate }),
    instructions: 'A notes service: add_note stores a note, search_notes finds notes, and each note is a resource. The skill skill://note-taking/SKILL.md describes the workflow.',
    cacheHints: { discover: { ttlMs: 60_000, cacheScope: 'public' } },
    ...(authorization === undefined ? {} : { authorization }),
    ...scale
  })
  // Modern clients listening with subscriptions/listen learn about new notes.
  store.onAdded = () => app.mcp.notifyResourcesChanged()
  return app
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const era = (process.env.MCP_ERA ?? 'dual') as DeploymentEra
  const host = process.env.HOST ?? '127.0.0.1'
  const port = Number(process.env.PORT ?? 3000)
  const stdio = process.argv.includes('--stdio')
  const app = await buildExampleServer({
    era,
    stdio,
    validate: { results: process.env.VALIDATE_RESULTS === '1' },
    authorization: authorizationFromEnv(process.env, host, port),
    // REDIS_URL and MCP_REQUEST_STATE_SECRET: notifications and tasks shared with other instances (see scale-from-env.ts).
    scale: await scaleFromEnv()
  })
  if (stdio) {
    // With MCP_AUTH_ISSUER, the local user's token comes from MCP_TOKEN and is verified like any other.
    const token = process.env.MCP_TOKEN
    await serveStdio(app, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })
  } else {
    await app.listen({ host, port })
  }
}
