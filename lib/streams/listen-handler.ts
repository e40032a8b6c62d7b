/**
 * `subscriptions/listen` (modern): the request is checked (its filter, task
 * notifications only for a client that declared the tasks extension, the
 * open-stream bounds) and the stream opened in the registry
 * (subscriptions.ts), remembering whose it is so task events reach only
 * their owner's streams. With authorization, the stream ends when the
 * caller's token expires.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { sendError } from '../response/reply.js'
import { modernErrorStatus } from '../response/modern-result.js'
import { declaresTasks, type ModernServerCapabilities, TASKS_EXTENSION } from '../server-module/capabilities.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { createListenResponder, type SubscriptionRegistry } from './subscriptions.js'

export interface ListenSettings {
  readonly registry: SubscriptionRegistry
  readonly capabilities: ModernServerCapabilities
  /** Who owns the tasks a stream may hear of, with the tasks extension (may throw: the caller's own function). */
  readonly taskOwner: ((request: FastifyRequest) => string) | undefined
  /** Whose share of the open-stream bound a stream counts against. */
  readonly caller: (request: FastifyRequest) => string
  /** With authorization: ends the stream when the caller's token expires. */
  readonly endAtExpiry: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined
}

export type ListenHandler = (id: RequestId, params: JsonObject, clientCapabilities: JsonObject, request: FastifyRequest, reply: FastifyReply) => FastifyReply

export function createListenHandler ({ registry, capabilities, taskOwner, caller, endAtExpiry }: ListenSettings): ListenHandler {
  const respondListen = createListenResponder(registry, capabilities)
  return function listen (id, params, clientCapabilities, request, reply) {
    const filter = params.notifications
    if (taskOwner !== undefined && isJsonObject(filter) && filter.taskIds !== undefined && !declaresTasks(clientCapabilities)) {
      return sendError(reply, 400, id, ErrorCode.MissingRequiredClientCapability, 'Missing required client capability: task notifications need the tasks extension',
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
    }
    // Task events reach only streams of the task's owner: the stream remembers whose it is.
    let owner: string | undefined
    if (taskOwner !== undefined) {
      try {
        owner = taskOwner(request)
      } catch (err) {
        request.log.error({ err }, 'MCP task owner could not be computed')
        return sendError(reply, modernErrorStatus(ErrorCode.InternalError), id, ErrorCode.InternalError, 'Internal error')
      }
    }
    const answer = respondListen(id, params, reply, owner, caller(request))
    endAtExpiry?.(request, reply)
    return answer
  }
}
