/**
 * Asking the client for input from a handler: `ctx.elicit(params)`,
 * `ctx.createMessage(params)` (sampling) and `ctx.listRoots()`, each
 * resolving to the client's result, the same code in both eras:
 *
 * - modern (2026-07-28): multi round-trip requests, see input-replay.ts. A
 *   missing answer ends this attempt with an `input_required` result; the
 *   client retries with the answers and the handler runs again.
 * - legacy: a JSON-RPC request on the SSE response of the client's POST; the
 *   client POSTs its response back (stream-client-requests.ts, pending-requests.ts).
 *
 * Only handlers of `tools/call`, `prompts/get` and `resources/read` may ask
 * (the spec allows `input_required` results on those alone).
 */
import {
  type ClientRequestMethod,
  type ClientRequestOptions,
  type InputRequest,
  type InputRequiredResult,
  missingCapability
} from '../protocol/client-request-wire.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'

/** How a request context reaches the client; one implementation per era. */
export interface ClientRequests {
  send (method: ClientRequestMethod, params: JsonObject, options?: ClientRequestOptions): Promise<JsonObject>
  /** Modern era: the `requestState` a hand-built `input_required` result set, verified, on the retry. */
  readonly requestState: string | undefined
}

/**
 * Thrown by `ctx.elicit()` and friends in the modern era when the answer is
 * not in the request yet; the endpoint answers `input_required`. Let it
 * propagate (a catch-all should rethrow it): a handler that swallows it
 * returns its own result instead.
 */
export class InputRequiredSignal extends Error {
  constructor () {
    super('input required: the endpoint answers with an input_required result and the client retries')
    this.name = 'InputRequiredSignal'
  }
}

/**
 * Builds an `input_required` result by hand (modern era only). The endpoint
 * signs `requestState` (the handler's own string comes back verified as
 * `ctx.requestState` on the retry) and checks that the client declared the
 * capabilities the requests need; the answers are in `params.inputResponses`.
 */
export function inputRequired (init: { inputRequests?: Record<string, InputRequest>, requestState?: string } = {}): InputRequiredResult {
  const result: InputRequiredResult = { resultType: 'input_required' }
  if (init.inputRequests !== undefined) result.inputRequests = init.inputRequests
  if (init.requestState !== undefined) result.requestState = init.requestState
  return result
}

/** A rejected promise that never counts as unhandled (the handler may not await every request). */
export function rejected (err: unknown): Promise<never> {
  const promise = Promise.reject(err)
  promise.catch(() => {})
  return promise
}

/** Throws -32021 when the client did not declare what `method` with `params` needs. */
export function requireCapabilityFor (method: string, params: JsonObject, capabilities: JsonObject): void {
  const required = missingCapability(method, params, capabilities)
  if (required === undefined) return
  throw new McpError(ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability for ${method}: ${JSON.stringify(required)}`,
    { requiredCapabilities: required })
}

/** The error a handler gets when it asks the client from a method that cannot. */
export function unavailable (method: string, era: string): Promise<never> {
  return rejected(new Error(`ctx.elicit/createMessage/listRoots are only available to tools/call, prompts/get and resources/read handlers (called while serving ${method}, ${era} era)`))
}
