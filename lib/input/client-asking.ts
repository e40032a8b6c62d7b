/**
 * The three ways a handler asks its client, `ctx.elicit()`, `ctx.createMessage()`
 * and `ctx.listRoots()`, written once over the one `ask` each context
 * implements: a request's context asks in its era's way (multi round-trip or
 * the legacy SSE stream), a task's context parks the task in `input_required`.
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

export abstract class ClientAsking {
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
