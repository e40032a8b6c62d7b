/**
 * What a request's `ctx` (lib/handler/request-context.ts) and a task's
 * (lib/tasks/task-context.ts) share: the check of the client's declared
 * capabilities, and the three ways a handler asks its client, `ctx.elicit()`,
 * `ctx.createMessage()` and `ctx.listRoots()`, written once over the one
 * `ask` each context implements: a request's context asks in its era's way
 * (multi round-trip or the legacy SSE stream), a task's context parks the
 * task in `input_required`.
 *
 * Each context declares its own fields (`era`, `clientCapabilities`...):
 * the request's is built per request, and setting them in a base constructor
 * measured slower there.
 */
import type {
  ClientRequestMethod,
  ClientRequestOptions,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult
} from '../protocol/client-request-wire.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Era } from '../protocol/methods.js'

export abstract class ClientAsking {
  abstract readonly era: Era
  abstract readonly clientCapabilities: JsonObject

  requireClientCapabilities (...names: string[]): void {
    const err = missingCapabilities(this.era, this.clientCapabilities, names)
    if (err !== undefined) throw err
  }

  elicit (params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult> {
    return this.ask('elicitation/create', params, options) as Promise<ElicitResult>
  }

  createMessage (params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult> {
    return this.ask('sampling/createMessage', params, options) as Promise<CreateMessageResult>
  }

  listRoots (options?: ClientRequestOptions): Promise<ListRootsResult> {
    return this.ask('roots/list', {}, options) as Promise<ListRootsResult>
  }

  /** Sends `method` to the client (or finds its answer); rejects rather than throws. */
  protected abstract ask (method: ClientRequestMethod, params: JsonObject, options: ClientRequestOptions | undefined): Promise<JsonObject>
}

/** The error `requireClientCapabilities(...names)` throws, or undefined when every name is declared. */
export function missingCapabilities (era: Era, clientCapabilities: JsonObject, names: readonly string[]): McpError | undefined {
  const missing = names.filter((name) => {
    const declared = clientCapabilities[name]
    return declared === null || typeof declared !== 'object'
  })
  if (missing.length === 0) return undefined
  const list = missing.join(', ')
  if (era === 'legacy') {
    // A stateless legacy request carries no client capabilities to check.
    return new McpError(ErrorCode.InvalidRequest, `This request needs client capabilities (${list}) that a stateless legacy request cannot declare`)
  }
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capabilities: ${list}`,
    { requiredCapabilities: Object.fromEntries(missing.map((name) => [name, {}])) }
  )
}
