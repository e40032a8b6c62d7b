/**
 * Coded errors thrown at registration (bad options, a server module that
 * would advertise what it cannot serve). Protocol errors sent to clients are
 * `McpError` (see mcp-error.ts), not these.
 */
import type { FastifyErrorConstructor } from '@fastify/error'
import { createError } from './common/commonjs-dependencies.js'

/**
 * The class of one coded error: `new FST_MCP_X(...args)` (or without `new`),
 * an `Error` with `code` and `statusCode`. Named here so the emitted
 * declarations never reach into `createError`'s namespace, which a consumer
 * compiling with `moduleResolution: bundler` cannot see.
 */
export type CodedErrorConstructor<C extends string, A extends unknown[]> = FastifyErrorConstructor<{ code: C }, A>

/** Every registration error is a programming error of the caller: status 500. Add new errors through this. */
function coded<C extends string, A extends unknown[]> (code: C, message: string, Base?: ErrorConstructor): CodedErrorConstructor<C, A> {
  return createError<C, A>(code, message, 500, Base)
}

export const FST_MCP_INVALID_ERA = coded<'FST_MCP_INVALID_ERA', [string, string]>(
  'FST_MCP_INVALID_ERA',
  'Invalid era "%s": expected one of %s',
  TypeError
)

export const FST_MCP_INVALID_SERVER = coded<'FST_MCP_INVALID_SERVER', [string]>(
  'FST_MCP_INVALID_SERVER',
  'Invalid server module: %s',
  TypeError
)

/** The third argument is a hint (` ("listTool" is not a handler name; did you mean "listTools"?)`) or ''. */
export const FST_MCP_MISSING_HANDLER = coded<'FST_MCP_MISSING_HANDLER', [string, string, string]>(
  'FST_MCP_MISSING_HANDLER',
  'Capability "%s" needs the handler "%s", which is missing from the server module%s'
)

export const FST_MCP_INVALID_CAPABILITIES = coded<'FST_MCP_INVALID_CAPABILITIES', [string]>(
  'FST_MCP_INVALID_CAPABILITIES',
  'Invalid capabilities declared by the server module: %s',
  TypeError
)

export const FST_MCP_INVALID_OPTION = coded<'FST_MCP_INVALID_OPTION', [string, string]>(
  'FST_MCP_INVALID_OPTION',
  'Invalid option "%s": %s',
  TypeError
)

export const FST_MCP_FASTIFY_VERSION = coded<'FST_MCP_FASTIFY_VERSION', [string]>(
  'FST_MCP_FASTIFY_VERSION',
  'fastify-mcp-capabilities needs Fastify 5, and this is Fastify %s'
)

export const FST_MCP_ALREADY_REGISTERED = coded<'FST_MCP_ALREADY_REGISTERED', []>(
  'FST_MCP_ALREADY_REGISTERED',
  'fastify-mcp-capabilities is already registered in this context (fastify.mcp exists): register each endpoint in its own encapsulated context'
)

export const FST_MCP_REQUEST_STATE_SECRET_REQUIRED = coded<'FST_MCP_REQUEST_STATE_SECRET_REQUIRED', [string]>(
  'FST_MCP_REQUEST_STATE_SECRET_REQUIRED',
  'Option "requestState.secret" is required with a shared %s: instances behind a load balancer must seal and open requestState with the same secret (a random key per process cannot work there)',
  TypeError
)

export const FST_MCP_SCALE_UNAVAILABLE = coded<'FST_MCP_SCALE_UNAVAILABLE', [string, { cause: unknown }?]>(
  'FST_MCP_SCALE_UNAVAILABLE',
  'The shared state is not available at registration: %s'
)

export const FST_MCP_INVALID_DEFINITION = coded<'FST_MCP_INVALID_DEFINITION', [string, string]>(
  'FST_MCP_INVALID_DEFINITION',
  'Invalid definition of %s: %s',
  TypeError
)

/** A skill that cannot be served as the Skills extension asks (lib/definitions/skills.ts): which skill, which file, why. */
export const FST_MCP_INVALID_SKILL = coded<'FST_MCP_INVALID_SKILL', [string, string, string]>(
  'FST_MCP_INVALID_SKILL',
  'Invalid skill "%s" (%s): %s',
  TypeError
)

export const FST_MCP_DUPLICATE_DEFINITION = coded<'FST_MCP_DUPLICATE_DEFINITION', [string, string, string]>(
  'FST_MCP_DUPLICATE_DEFINITION',
  '%s is defined twice: %s and %s (every tool and prompt name, resource name, URI and URI template must be unique)'
)

export const FST_MCP_UNKNOWN_DEFINITION = coded<'FST_MCP_UNKNOWN_DEFINITION', [string]>(
  'FST_MCP_UNKNOWN_DEFINITION',
  'No %s is defined on this endpoint'
)

export const FST_MCP_NOT_ADVERTISED = coded<'FST_MCP_NOT_ADVERTISED', [string, string]>(
  'FST_MCP_NOT_ADVERTISED',
  'Cannot add %s at runtime: %s'
)

export const FST_MCP_INVALID_ROUTE_TOOL = coded<'FST_MCP_INVALID_ROUTE_TOOL', [string, string]>(
  'FST_MCP_INVALID_ROUTE_TOOL',
  'Route %s cannot be a tool: %s',
  TypeError
)

/** `routes` is on, no route became a tool, and routes were declared before the plugin (lib/routes/declared-routes.ts): the second argument lists them. */
export const FST_MCP_ROUTES_DECLARED_BEFORE = coded<'FST_MCP_ROUTES_DECLARED_BEFORE', [string]>(
  'FST_MCP_ROUTES_DECLARED_BEFORE',
  'The plugin was registered with `routes` on but no route became a tool, and these routes were declared before the plugin, where its onRoute hook cannot see them (nor read their config.mcp): %s. Register the plugin (with await) before your routes, or drop the `routes` option if no route is a tool'
)

export const FST_MCP_ROUTE_ARGUMENT_COLLISION = coded<'FST_MCP_ROUTE_ARGUMENT_COLLISION', [string, string, string, string]>(
  'FST_MCP_ROUTE_ARGUMENT_COLLISION',
  'Route %s cannot be a tool: the argument "%s" would be both in the %s and in the %s (leave a part out with config.mcp.querystring/params: false, or name the whole body with config.mcp.body: "<name>")'
)

export const FST_MCP_INVALID_HOOK = coded<'FST_MCP_INVALID_HOOK', [string, string]>(
  'FST_MCP_INVALID_HOOK',
  'Invalid MCP hook "%s": %s',
  TypeError
)

export const FST_MCP_STDIO_NO_ENDPOINT = coded<'FST_MCP_STDIO_NO_ENDPOINT', []>(
  'FST_MCP_STDIO_NO_ENDPOINT',
  'serveStdio(app): the app has no fastify.mcp; register fastify-mcp-capabilities on it (in the root context or with fastify-plugin) before serving it over stdio',
  TypeError
)

export const FST_MCP_STDIO_LOGGER_ON_STDOUT = coded<'FST_MCP_STDIO_LOGGER_ON_STDOUT', []>(
  'FST_MCP_STDIO_LOGGER_ON_STDOUT',
  'serveStdio(app): the app\'s logger writes to stdout, which carries the MCP messages over stdio; create the app with its logs on stderr: Fastify({ logger: { stream: process.stderr } }) (or a pino destination on file descriptor 2), or without a logger'
)

export const FST_MCP_STDIO_AUTHORIZATION = coded<'FST_MCP_STDIO_AUTHORIZATION', []>(
  'FST_MCP_STDIO_AUTHORIZATION',
  'serveStdio(app): the endpoint requires bearer tokens (the "authorization" option) and stdio carries no HTTP headers; pass the local principal\'s token, checked like any other: serveStdio(app, { headers: { authorization: \'Bearer \' + process.env.MCP_TOKEN } }), or register the plugin without "authorization" in the process that serves stdio'
)
