/**
 * The ten tools every cold-start server (bench/servers/cold-*.ts) defines,
 * each with a validated input of the same shape, and what a call answers.
 * Written once here as JSON Schema; each server writes the same shape in
 * its own schema library.
 */
import type { ToolDefinition } from './catalog.js'

export const COLD_TOOL_NAMES = [
  'search_issues', 'get_issue', 'create_issue', 'add_comment', 'close_issue',
  'list_labels', 'assign_issue', 'list_milestones', 'get_user', 'search_code'
] as const

export const COLD_TOOLS: readonly ToolDefinition[] = COLD_TOOL_NAMES.map((name) => ({
  name,
  title: name.replace('_', ' '),
  description: `The ${name.replace('_', ' ')} tool of the cold-start benchmark.`,
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 100 }
    },
    required: ['query']
  }
}))

/** The called tool and its arguments (the ninth tool: the call does not find its tool first by luck). */
export const COLD_CALL = { name: 'get_user', arguments: { query: 'cold start', limit: 3 } } as const

export function coldAnswer (name: string, args: Record<string, unknown>): { content: Array<{ type: 'text', text: string }>, isError?: boolean } {
  return { content: [{ type: 'text', text: `${name}: ${String(args.query)} (${String(args.limit ?? 'all')})` }] }
}

/** The environment variable that hands the floor (servers/cold-bare.ts) the plugin's answers. */
export const COLD_ANSWERS_ENV = 'COLD_START_ANSWERS'

export interface ColdAnswer { status: number, headers: Record<string, string>, body: string }
/** By era: a modern request carries `_meta` in its params. Bodies in base64. */
export interface ColdAnswers { legacy: ColdAnswer, modern: ColdAnswer }
