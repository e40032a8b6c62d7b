/**
 * The public types of MCP hooks (`fastify.mcp.addHook(name, fn)`): what each
 * hook receives and may return. A hook may be async; `this` is the Fastify
 * instance of the context it was added in, as with Fastify's own hooks.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RequestId } from '../protocol/jsonrpc.js'
import type { Era } from '../protocol/methods.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'

/**
 * One MCP request, as every hook sees it. For the outcome of work a tool ran
 * as a task (`runAsTask`), it is the operation of the `tools/call` that
 * created the task: its `request` was answered already (read it, do not
 * reply to it).
 */
export interface McpOperation {
  /** The JSON-RPC method (`tools/call`, `resources/read`, `initialize`, ...). */
  readonly method: string
  /** The JSON-RPC params, as parsed (treat as read-only: the client sent them). */
  readonly params: JsonObject
  readonly id: RequestId
  /** `modern` when `_meta` names a protocol version (2026-07-28), else `legacy`. */
  readonly era: Era
  /** The caller that owns caller-bound state: the verified principal, a digest of the credential, or `'anonymous'`. */
  readonly caller: string
  /**
   * What the request acts on (the param the method table names): the tool or
   * prompt name (`tools/call`, `prompts/get`), the URI (`resources/read`),
   * the task id (`tasks/*`); undefined for other methods.
   */
  readonly target: string | undefined
  readonly request: FastifyRequest
}

/** A call of a tool, a prompt or a resource, after its arguments were validated. */
export interface McpCall extends McpOperation {
  readonly method: 'tools/call' | 'prompts/get' | 'resources/read'
  /**
   * The tool's or prompt's arguments (`{}` for `resources/read`). Assign a new
   * object to change what the handler receives; it is not validated again.
   */
  arguments: JsonObject
  /**
   * `resources/read` only (else undefined): the URI to read, first the one the
   * client sent (also in `target`, which keeps it). Assign another to read
   * that instead: it is resolved as a client's URI would be (the defined
   * resources and templates, else the raw `readResource`), and with
   * authorization the caller must hold the scopes the new target needs, or
   * the call is refused with -32600 (no 403 challenge: the client did not
   * ask for it). The endpoint's own scopes and the method's were already
   * checked and are the same for any URI.
   */
  uri: string | undefined
  /** The handler's context (`ctx`): logger, signal, progress, auth. */
  readonly ctx: HandlerContext
}

/** A JSON-RPC error the operation is about to be answered with. */
export interface McpOperationError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

type Maybe<T> = T | Promise<T>

/**
 * Every MCP request after parsing (methods the endpoint serves itself
 * included). Throw an `McpError` to reject it; return a result object to
 * answer a handler-served method (tools, prompts, resources, completion,
 * lists) without its handler.
 */
export type OnRequestHook = (this: FastifyInstance, operation: McpOperation) => Maybe<JsonObject | undefined | void>

/**
 * `tools/call`, `prompts/get`, `resources/read`, after argument validation,
 * right before the handler: return a result to answer in its place, throw to
 * fail the call (as if the handler threw), assign `call.arguments` to change
 * them, or `call.uri` to read another resource. Runs once per call, before
 * the handler decides to run its work as a task.
 */
export type PreHandlerHook = (this: FastifyInstance, call: McpCall) => Maybe<JsonObject | undefined | void>

/**
 * A handler-served method's result, before it is sent: return an object to
 * replace it. For a tool that runs its work as a task (`runAsTask`), the
 * result of that work, when it ends (in the background), before the task
 * keeps it: a replacement is what `tasks/get` serves; the `CreateTaskResult`
 * answering the call itself passes no hook. A hook that throws there ends the
 * task as the same throw ends a direct call (an `McpError` fails it with that
 * error, anything else completes it with a tool execution error). Results
 * asking the client for input (`input_required`) pass unchanged.
 */
export type OnResultHook = (this: FastifyInstance, operation: McpOperation, result: JsonObject) => Maybe<JsonObject | undefined | void>

/**
 * A handler-served method answered with a JSON-RPC error (thrown by its
 * handler or a hook), or the work of a task-run tool ending with one (an
 * `McpError`, the task fails with it); observes only.
 */
export type OnErrorHook = (this: FastifyInstance, operation: McpOperation, error: McpOperationError) => Maybe<void>

export interface McpHooks {
  onRequest: OnRequestHook
  preHandler: PreHandlerHook
  onResult: OnResultHook
  onError: OnErrorHook
}

export type McpHookName = keyof McpHooks
