/**
 * The tool catalogue every benchmarked server serves, so the three answer
 * `tools/list` with the same tools (plain JSON Schema, written once here).
 */

export const SERVER_INFO = Object.freeze({ name: 'bench-server', version: '1.0.0' })

/** Cache hints for `server/discover`, as a gateway-facing deployment would set them. */
export const DISCOVER_HINTS = Object.freeze({ ttlMs: 60_000, cacheScope: 'public' as const })

export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: { type: 'object', properties: Record<string, object>, required?: string[] }
  annotations?: Record<string, boolean>
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'search_issues',
    title: 'Search issues',
    description: 'Full-text search over the issue tracker; returns matching issue numbers and titles.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for' },
        state: { type: 'string', enum: ['open', 'closed', 'all'], default: 'open' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }
      },
      required: ['query']
    },
    annotations: { readOnlyHint: true, openWorldHint: false }
  },
  {
    name: 'get_issue',
    title: 'Get issue',
    description: 'Reads one issue with its labels and comments.',
    inputSchema: {
      type: 'object',
      properties: { number: { type: 'integer', minimum: 1, description: 'Issue number' } },
      required: ['number']
    },
    annotations: { readOnlyHint: true, openWorldHint: false }
  },
  {
    name: 'create_issue',
    title: 'Create issue',
    description: 'Opens a new issue and returns its number.',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        body: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' }, uniqueItems: true }
      },
      required: ['title']
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false }
  },
  {
    name: 'add_comment',
    title: 'Add comment',
    description: 'Adds a comment to an existing issue.',
    inputSchema: {
      type: 'object',
      properties: {
        number: { type: 'integer', minimum: 1 },
        body: { type: 'string', minLength: 1 }
      },
      required: ['number', 'body']
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false }
  }
]

/** What every server answers to `tools/call` (not timed; keeps the modules honest). */
export function callTool (name: string, args: Record<string, unknown>): { content: Array<{ type: 'text', text: string }>, isError?: boolean } {
  if (!TOOLS.some((tool) => tool.name === name)) {
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true }
  }
  return { content: [{ type: 'text', text: `${name} ok: ${JSON.stringify(args)}` }] }
}
