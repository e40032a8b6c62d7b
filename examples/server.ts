/**
 * A small, realistic MCP server on Fastify: a notes service with tools,
 * resources (plus a URI template), prompts and completions.
 *
 *   npm start                          # http://127.0.0.1:3000/mcp, both eras
 *   HOST=127.0.0.1 PORT=8080 MCP_ERA=modern npm start
 *   MCP_AUTH_ISSUER=https://auth.example.com npm start   # bearer tokens required (see README, Authorization)
 *
 * With MCP_AUTH_ISSUER every request needs an access token from that
 * authorization server (its JWKS found through
 * <issuer>/.well-known/oauth-authorization-server) whose audience is
 * MCP_RESOURCE_URL (default http://HOST:PORT/mcp); add_note also needs the
 * scope notes:write.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { pathToFileURL } from 'node:url'
import { scaleFromEnv } from './scale-from-env.js'
import mcpCapabilities, { type McpCapabilitiesOptions, type AuthorizationOptions, ErrorCode, McpError, type DeploymentEra, type HandlerContext, REQUIRED_SCOPES } from '../lib/index.js'

interface Note { id: string, title: string, body: string, tags: string[] }

function noteUri (id: string): string {
  return `notes://note/${encodeURIComponent(id)}`
}

/** The server module: its methods are the MCP handlers; the plugin derives capabilities from them. */
export class NotesServer {
  readonly #notes = new Map<string, Note>()
  /** Called after a note is added: the app announces it to listening clients. */
  onNoteAdded: (uri: string) => void = () => {}

  constructor (seed: Note[] = DEFAULT_NOTES) {
    for (const note of seed) this.#notes.set(note.id, { ...note })
  }

  listTools () {
    return {
      tools: [
        {
          name: 'add_note',
          title: 'Add a note',
          description: 'Stores a note and returns its URI.',
          inputSchema: {
            type: 'object',
            properties: {
              title: { type: 'string', minLength: 1 },
              body: { type: 'string' },
              tags: { type: 'array', items: { type: 'string' } }
            },
            required: ['title', 'body']
          }
        },
        {
          name: 'search_notes',
          title: 'Search notes',
          description: 'Finds notes whose title, body or tags contain the query (case-insensitive).',
          inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          annotations: { readOnlyHint: true }
        },
        {
          name: 'word_count',
          title: 'Count words',
          description: 'Counts the words of a text.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          outputSchema: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] },
          annotations: { readOnlyHint: true, idempotentHint: true }
        }
      ]
    }
  }

  callTool (params: { name: string, arguments?: Record<string, unknown> }, ctx: HandlerContext) {
    const args = params.arguments ?? {}
    switch (params.name) {
      case 'add_note': {
        if (typeof args.title !== 'string' || args.title.length === 0 || typeof args.body !== 'string') {
          return { content: [{ type: 'text', text: 'add_note needs a non-empty "title" and a "body" string' }], isError: true }
        }
        const tags = Array.isArray(args.tags) ? args.tags.filter((t): t is string => typeof t === 'string') : []
        const id = String(this.#notes.size + 1)
        this.#notes.set(id, { id, title: args.title, body: args.body, tags })
        ctx.logger.info({ id }, 'note added')
        ctx.log('info', { added: id }, 'notes')
        this.onNoteAdded(noteUri(id))
        return {
          content: [{ type: 'resource_link', uri: noteUri(id), name: args.title, mimeType: 'text/markdown' }]
        }
      }
      case 'search_notes': {
        const query = typeof args.query === 'string' ? args.query.toLowerCase() : ''
        const hits = [...this.#notes.values()].filter((n) =>
          n.title.toLowerCase().includes(query) || n.body.toLowerCase().includes(query) || n.tags.some((t) => t.includes(query)))
        return {
          content: hits.length === 0
            ? [{ type: 'text', text: 'No notes match.' }]
            : hits.map((n) => ({ type: 'resource_link', uri: noteUri(n.id), name: n.title, mimeType: 'text/markdown' }))
        }
      }
      case 'word_count': {
        const text = typeof args.text === 'string' ? args.text : ''
        const words = text.split(/\s+/).filter(Boolean).length
        return { content: [{ type: 'text', text: String(words) }], structuredContent: { words } }
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`)
    }
  }

  listResources () {
    return {
      resources: [...this.#notes.values()].map((n) => ({
        uri: noteUri(n.id), name: n.title, mimeType: 'text/markdown'
      }))
    }
  }

  listResourceTemplates () {
    return {
      resourceTemplates: [{
        uriTemplate: 'notes://note/{id}',
        name: 'note',
        title: 'A note by id',
        mimeType: 'text/markdown'
      }]
    }
  }

  readResource (params: { uri: string }) {
    const match = /^notes:\/\/note\/([^/]+)$/.exec(params.uri)
    const note = match === null ? undefined : this.#notes.get(decodeURIComponent(match[1] as string))
    if (note === undefined) throw new McpError(-32002, `Resource not found: ${params.uri}`, { uri: params.uri })
    return {
      contents: [{ uri: params.uri, mimeType: 'text/markdown', text: `# ${note.title}\n\n${note.body}\n` }]
    }
  }

  listPrompts () {
    return {
      prompts: [{
        name: 'summarise_note',
        title: 'Summarise a note',
        description: 'Asks the model for a short summary of one note.',
        arguments: [{ name: 'id', description: 'The note id', required: true }]
      }]
    }
  }

  getPrompt (params: { name: string, arguments?: Record<string, string> }) {
    if (params.name !== 'summarise_note') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`)
    const id = params.arguments?.id
    const note = id === undefined ? undefined : this.#notes.get(id)
    if (note === undefined) throw new McpError(ErrorCode.InvalidParams, 'Argument "id" must name an existing note')
    return {
      description: `Summary of "${note.title}"`,
      messages: [{ role: 'user', content: { type: 'text', text: `Summarise this note in two sentences:\n\n${note.body}` } }]
    }
  }

  complete (params: { ref: { type: string, name?: string, uri?: string }, argument: { name: string, value: string } }) {
    const { ref, argument } = params
    const wantsId = (ref.type === 'ref/prompt' && ref.name === 'summarise_note' && argument.name === 'id') ||
      (ref.type === 'ref/resource' && ref.uri === 'notes://note/{id}' && argument.name === 'id')
    const values = wantsId ? [...this.#notes.keys()].filter((id) => id.startsWith(argument.value)) : []
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } }
  }
}

const DEFAULT_NOTES: Note[] = [
  { id: '1', title: 'Welcome', body: 'This server stores notes. Try the search_notes tool.', tags: ['intro'] },
  { id: '2', title: 'Shopping', body: 'Milk, eggs, coffee.', tags: ['home'] }
]

/** The scope a tool needs beyond a valid token (none listed: a valid token is enough). */
const TOOL_SCOPES: Readonly<Record<string, string[]>> = { add_note: ['notes:write'] }
// The per-tool scope contract (what the define helpers set from `scopes: [...]`).
Object.defineProperty(NotesServer.prototype.callTool, REQUIRED_SCOPES, {
  value: (params: { name?: unknown }) => typeof params.name === 'string' ? TOOL_SCOPES[params.name] : undefined
})

export interface ExampleOptions {
  era?: DeploymentEra
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

export async function buildExampleServer ({ era = 'dual', authorization, scale }: ExampleOptions & { scale?: Pick<McpCapabilitiesOptions, 'scale' | 'requestStateSecret'> } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })
  const notes = new NotesServer()
  await app.register(mcpCapabilities, {
    server: notes,
    serverInfo: { name: 'notes-example', title: 'Notes (example)', version: '1.0.0' },
    era,
    instructions: 'A notes service: add_note stores a note, search_notes finds notes, and each note is a resource.',
    discover: { ttlMs: 60_000, cacheScope: 'public' },
    ...(authorization === undefined ? {} : { authorization }),
    ...scale
  })
  // Modern clients listening with subscriptions/listen learn about new notes.
  notes.onNoteAdded = () => app.mcp.notifyResourcesChanged()
  return app
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const era = (process.env.MCP_ERA ?? 'dual') as DeploymentEra
  const host = process.env.HOST ?? '127.0.0.1'
  const port = Number(process.env.PORT ?? 3000)
  // REDIS_URL and MCP_REQUEST_STATE_SECRET: notifications and tasks shared with other instances (see scale-from-env.ts).
  const app = await buildExampleServer({ era, authorization: authorizationFromEnv(process.env, host, port), scale: await scaleFromEnv() })
  await app.listen({ host, port })
}
