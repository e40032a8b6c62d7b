/**
 * The request a route-backed tool call makes (the "inner request") and the
 * checks that keep it on its route.
 *
 * The inner request is dispatched through the app's router like any other,
 * so its path alone does not decide which route serves it: find-my-way
 * prefers a static sibling (`/items/export` over `/items/:id`), a value
 * longer than `maxParamLength` falls through to a catch-all, and so on.
 * Each inner request is therefore marked (its raw request, in a WeakMap no
 * client can reach), and every route-backed tool's route carries a key in
 * its config (`ROUTE_TOOL`). The plugin's `onRequest` hook compares the two
 * on the request itself: a request reaching any other route is answered
 * there (421) before that route's handler runs, and the call is a tool
 * error naming both routes. The `onSend` hook records the serving route
 * when an earlier hook answered first, so no other route's answer is ever
 * passed on.
 *
 * Hooks can tell the inner request apart with `request.mcpRouteTool`
 * (null for every other request), and its log lines carry the MCP
 * request's id as `mcpReqId`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

/** What `request.mcpRouteTool` holds on the request a route-backed tool call makes. */
export interface McpRouteToolRequest {
  /** The tool being called. */
  readonly tool: string
  /** The MCP request (`POST /mcp`) whose `tools/call` made this request. */
  readonly outerRequest: FastifyRequest
}

/** The route that served (or answered) an inner request. */
export interface ServingRoute {
  /** Undefined when no route matched (the not-found handler answered). */
  readonly method: string | undefined
  readonly url: string | undefined
  readonly own: boolean
}

/** One inner request while it runs. */
export interface InnerCall {
  readonly info: McpRouteToolRequest
  /** The key its route carries in its config. */
  readonly route: object
  /** Set by the first of the plugin's hooks that saw the request. */
  served: ServingRoute | undefined
}

/** The key a route-backed tool's route carries in its config (`request.routeOptions.config`). */
export const ROUTE_TOOL: unique symbol = Symbol('fastify-mcp-capabilities.routeTool')

/** Inner requests by their raw request (light-my-request's), while they run. */
const innerCalls = new WeakMap<object, InnerCall>()

/** Marks `raw` as the inner request of `call` (before it is dispatched). */
export function markInnerRequest (raw: object, call: InnerCall): void {
  innerCalls.set(raw, call)
}

function servingRoute (request: FastifyRequest, call: InnerCall): ServingRoute {
  const options = request.routeOptions
  const config = options.config as unknown as Record<PropertyKey, unknown> | undefined
  const method = options.method
  return {
    method: method === undefined ? undefined : Array.isArray(method) ? method.join(',') : String(method),
    url: options.url,
    own: config?.[ROUTE_TOOL] === call.route
  }
}

function checkInnerRoute (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const call = innerCalls.get(request.raw)
  if (call === undefined || call.served !== undefined) return done()
  const served = call.served = servingRoute(request, call)
  if (served.own) return done()
  // Another route (or none): answered here, so that route's handler never runs.
  reply.code(421).send({ statusCode: 421, error: 'Misdirected Request', message: `this request of tool "${call.info.tool}" is not for this route` })
}

function noteServingRoute (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  const call = innerCalls.get(request.raw)
  if (call !== undefined && call.served === undefined) call.served = servingRoute(request, call)
  done(null, payload)
}

/**
 * Installs, in `fastify`'s context (the plugin's, shared with its parent):
 * `request.mcpRouteTool` (always, so a hook testing it is right without
 * routes too) and, with `routes` on, the route check on every inner request
 * and the MCP request's id in the inner request's log lines.
 */
export function installInnerRequestChecks (fastify: FastifyInstance, routes: boolean): void {
  if (!fastify.hasRequestDecorator('mcpRouteTool')) {
    // A getter: set from the request's first moment, whichever hook asks first (a rate limiter registered earlier included).
    fastify.decorateRequest('mcpRouteTool', {
      getter (this: FastifyRequest): McpRouteToolRequest | null {
        return innerCalls.get(this.raw)?.info ?? null
      }
    })
  }
  if (!routes) return
  fastify.addHook('onRequest', checkInnerRoute)
  fastify.addHook('onSend', noteServingRoute)
  const previous = fastify.childLoggerFactory
  fastify.setChildLoggerFactory(function (logger, bindings, options, raw) {
    const call = innerCalls.get(raw)
    return previous.call(this, logger, call === undefined ? bindings : { ...bindings, mcpReqId: call.info.outerRequest.id }, options, raw)
  })
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * On the request a route-backed tool call makes (the route's request,
     * run in-process): the tool and the MCP request it serves; null on every
     * other request. Lets a global hook (a rate limit, request metrics, an
     * access log) skip what it counted already as the MCP request.
     */
    readonly mcpRouteTool: McpRouteToolRequest | null
  }
}
