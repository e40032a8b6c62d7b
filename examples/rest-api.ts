/**
 * An existing REST API exposed as MCP tools: a small bookshelf with four
 * routes written with TypeBox schemas and an API-key auth hook. The MCP
 * plugin is registered first (as @fastify/swagger is), the routes opt in
 * with `config: { mcp: ... }`, and each becomes a tool whose arguments,
 * description and output come from the route's schemas. A tool call runs
 * the route in-process, through the same auth hook, validation and
 * serializer an HTTP client goes through: the MCP client's bearer token is
 * forwarded as the route's Authorization header.
 *
 *   npm run start:rest                       # http://127.0.0.1:3000, MCP at /mcp, both eras
 *   HOST=127.0.0.1 PORT=8080 MCP_ERA=modern npm run start:rest
 *   API_KEY=secret npm run start:rest        # the key both HTTP and MCP clients send as `Authorization: Bearer <key>`
 *
 * Try it over HTTP:  curl -H 'authorization: Bearer dev-key' http://127.0.0.1:3000/api/books?author=Le%20Guin
 */
import { type Static, Type } from '../lib/typebox/index.js'
import Fastify, { type FastifyInstance } from 'fastify'
import { pathToFileURL } from 'node:url'
import mcpCapabilities, { type DeploymentEra } from '../lib/index.js'

const Book = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  author: Type.String(),
  year: Type.Integer(),
  available: Type.Boolean()
}, { $id: 'Book' })
type Book = Static<typeof Book>

const BookInput = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  author: Type.String({ minLength: 1, maxLength: 200 }),
  year: Type.Integer({ minimum: -3000, maximum: 3000 })
}, { additionalProperties: false })

/** Fastify's error shape: the MCP tool error carries its `message`. */
const ApiError = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String() })

const BookList = Type.Object({ books: Type.Array(Type.Ref('Book')), total: Type.Integer() })

const SEED: Array<Omit<Book, 'id'>> = [
  { title: 'A Wizard of Earthsea', author: 'Ursula K. Le Guin', year: 1968, available: true },
  { title: 'The Dispossessed', author: 'Ursula K. Le Guin', year: 1974, available: false },
  { title: 'Kindred', author: 'Octavia E. Butler', year: 1979, available: true }
]

/** The REST API as it was before MCP: routes, schemas, an auth hook. */
async function bookshelf (api: FastifyInstance, { apiKey }: { apiKey: string }): Promise<void> {
  const books = new Map<number, Book>()
  let next = 1
  for (const book of SEED) books.set(next, { id: next++, ...book })

  // Every route of this API needs the key, MCP or not.
  api.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'send the API key as "Authorization: Bearer <key>"' })
    }
  })

  api.get('/books', {
    config: { mcp: { name: 'search_books' } },
    schema: {
      summary: 'Search books',
      description: 'Books on the shelf, filtered by author (substring, any case) and availability.',
      querystring: Type.Object({
        author: Type.Optional(Type.String({ description: 'part of the author\'s name' })),
        available: Type.Optional(Type.Boolean()),
        limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 })
      }),
      response: { 200: BookList }
    }
  }, async (request) => {
    const { author, available, limit } = request.query as { author?: string, available?: boolean, limit: number }
    const found = [...books.values()].filter((b) =>
      (author === undefined || b.author.toLowerCase().includes(author.toLowerCase())) &&
      (available === undefined || b.available === available))
    return { books: found.slice(0, limit), total: found.length }
  })

  api.get('/books/:id', {
    config: { mcp: { name: 'get_book' } },
    schema: {
      description: 'One book by its id.',
      params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      response: { 200: Type.Ref('Book'), 404: ApiError }
    }
  }, async (request, reply) => {
    const book = books.get((request.params as { id: number }).id)
    if (book === undefined) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no book has id ${(request.params as { id: number }).id}` })
    return book
  })

  api.post('/books', {
    config: { mcp: { name: 'add_book', annotations: { idempotentHint: false } } },
    schema: {
      description: 'Adds a book to the shelf.',
      body: BookInput,
      response: { 201: Type.Ref('Book') }
    }
  }, async (request, reply) => {
    const input = request.body as Static<typeof BookInput>
    const book: Book = { id: next++, ...input, available: true }
    books.set(book.id, book)
    return reply.code(201).send(book)
  })

  api.patch('/books/:id/loan', {
    config: { mcp: { name: 'lend_book', title: 'Lend a book' } },
    schema: {
      description: 'Marks an available book as lent out (409 when it already is).',
      params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      body: Type.Object({ borrower: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Ref('Book'), 404: ApiError, 409: ApiError }
    }
  }, async (request, reply) => {
    const book = books.get((request.params as { id: number }).id)
    if (book === undefined) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no book has id ${(request.params as { id: number }).id}` })
    if (!book.available) return reply.code(409).send({ statusCode: 409, error: 'Conflict', message: `"${book.title}" is already lent out` })
    book.available = false
    return book
  })
}

export interface RestExampleOptions {
  era?: DeploymentEra
  apiKey?: string
}

export async function buildRestExample ({ era = 'dual', apiKey = 'dev-key' }: RestExampleOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })
  // First the MCP plugin, so it sees the routes declared after it.
  await app.register(mcpCapabilities, {
    server: {},
    serverInfo: { name: 'bookshelf', title: 'Bookshelf (REST API as MCP tools)', version: '1.0.0' },
    era,
    instructions: 'A bookshelf: search_books, get_book, add_book and lend_book.',
    // The MCP client's bearer token becomes the route's Authorization header: the API's own hook checks it.
    routes: { forwardHeaders: ['authorization'] }
  })
  app.addSchema(Book)
  await app.register(bookshelf, { prefix: '/api', apiKey })
  return app
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = await buildRestExample({
    era: (process.env.MCP_ERA ?? 'dual') as DeploymentEra,
    apiKey: process.env.API_KEY ?? 'dev-key'
  })
  await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 3000) })
}
