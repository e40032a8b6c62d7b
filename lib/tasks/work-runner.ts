/**
 * Runs a task's work in the background and stores its outcome, as named
 * steps: the work's value (or what it threw) becomes an outcome, shaped as
 * the tool's result (`outcomeOfWork`); the outcome passes the call's
 * onResult and onError hooks when any apply (`throughHooks`); the final
 * outcome is stored (`storeFinal`). A run that ended meanwhile (cancelled,
 * expired, shut down) stops at the next step: the store has its final state.
 */
import type { FastifyBaseLogger } from 'fastify'
import { errorOf, errorOutcome, INTERNAL_ERROR_OUTCOME, type Outcome } from '../handler/invoke.js'
import { toolResultOrEmpty } from '../handler/empty-result.js'
import { thrownToolResult, type ToolErrorMode } from '../handler/tool-errors.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { McpError } from '../protocol/mcp-error.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import type { Change } from '../parts/task-store.js'
import type { WorkOutcomeStep, WorkResultStep } from './call-plan.js'
import type { TaskOutcome } from './held-outcomes.js'
import type { TaskRun } from './runs.js'

/** What the tasks service gives the runner. */
export interface WorkHost {
  /** What work that throws answers (the `toolErrors` option). */
  readonly toolErrors: ToolErrorMode
  /** Stores the outcome, ends the run and publishes the change (held when the store cannot take it now). */
  finish (run: TaskRun, outcome: TaskOutcome, expiresAt: number): Promise<Change | undefined>
  /** Ends a run whose outcome could not be stored at all. */
  end (run: TaskRun, reason: string): void
}

/** One task's work, as the created task starts it. */
export interface StartedWork {
  readonly run: TaskRun
  /** The task's context (lib/tasks/task-context.ts). */
  readonly ctx: HandlerContext
  readonly work: (ctx: HandlerContext) => unknown
  /** The tool's name, for the log when its work throws or returns something unfit. */
  readonly tool: string
  /** When the task expires (ms since the epoch), for an outcome held until the store answers again. */
  readonly expiresAt: number
  /** A defined tool's shaping of the work's value. */
  readonly shape: WorkResultStep | undefined
  /** The call's onResult and onError hooks, when any apply. */
  readonly through: WorkOutcomeStep | undefined
}

/**
 * Starts `started.work` on a later tick. Only strings and the task's context
 * are captured: the request and its body stay free to go (unless hooks see
 * the outcome: `through` keeps the operation they are given).
 */
export function runWork (host: WorkHost, started: StartedWork): void {
  settleWork(host, started).catch((err: unknown) => {
    started.ctx.logger.error({ err, method: started.ctx.method, tool: started.tool }, `MCP task outcome of tool ${JSON.stringify(started.tool)} could not be stored`)
    host.end(started.run, 'the task store failed')
  })
}

async function settleWork (host: WorkHost, started: StartedWork): Promise<void> {
  let outcome = await outcomeOfWork(host, started)
  if (outcome === undefined) return
  if (started.through !== undefined) {
    outcome = await throughHooks(started, started.through, outcome)
    if (outcome === undefined) return
  }
  await storeFinal(host, started, outcome)
}

/**
 * A result completes the task; an `McpError` fails it with that error;
 * anything else thrown completes it with a tool execution error
 * (`isError: true`), what the same call would have answered without a task.
 * With `shape` (a defined tool's), the value becomes the tool's result as a
 * direct call's would, a value that does not fit failing the task (-32603).
 */
function outcomeOfWork (host: WorkHost, { run, ctx, work, tool, shape }: StartedWork): Promise<Outcome | undefined> {
  const { logger, method } = ctx
  return Promise.resolve().then(() => work(ctx)).then((value): Outcome | Promise<Outcome> | undefined => {
    // Cancelled, expired or shut down meanwhile: the store already has the final state.
    if (run.ended) return undefined
    // The tool's shaping sees what the work returned (an output schema refuses nothing); nothing left is an empty result.
    return shape === undefined ? finalOutcome(toolResultOrEmpty(value), tool, method, logger) : shaped(shape, value, ctx, tool)
  }, (err: unknown): Outcome | undefined => {
    if (run.ended) return undefined
    if (err instanceof McpError) return errorOutcome(err)
    if (run.controller.signal.aborted) return undefined
    return { ok: true, result: thrownToolResult(err, tool, host.toolErrors, logger) }
  })
}

/** The outcome passes the onResult and onError hooks, as a direct call's would; undefined when the run ended meanwhile. */
async function throughHooks ({ run, ctx, tool }: StartedWork, through: WorkOutcomeStep, outcome: Outcome): Promise<Outcome | undefined> {
  const { logger, method } = ctx
  try {
    outcome = await through(outcome, ctx)
  } catch (err) {
    // The step turns a hook's throw into an outcome; this is a fault of the endpoint's own.
    logger.error({ err, method, tool }, `MCP hooks on the task outcome of tool ${JSON.stringify(tool)} failed`)
    outcome = INTERNAL_ERROR_OUTCOME
  }
  if (run.ended) return undefined
  // A hook's replacement must be a final result too.
  return outcome.ok ? finalOutcome(outcome.result, tool, method, logger) : outcome
}

/** Stores the final outcome: an error fails the task, a result completes it. */
async function storeFinal (host: WorkHost, { run, ctx, tool, expiresAt }: StartedWork, outcome: Outcome): Promise<void> {
  if (!outcome.ok) {
    await host.finish(run, { kind: 'fail', error: errorOf(outcome) as JsonObject, statusMessage: outcome.message }, expiresAt)
    return
  }
  const result = outcome.result
  const change = await host.finish(run, { kind: 'complete', result: typeof result.resultType === 'string' ? result : { ...result, resultType: 'complete' } }, expiresAt)
  if (change?.changed === true && change.task.status === 'failed') {
    ctx.logger.warn({ method: ctx.method, tool, statusMessage: change.task.statusMessage }, `MCP task result of tool ${JSON.stringify(tool)} could not be kept; the task failed`)
  }
}

/** The tool's result made of the work's value; a value the tool does not declare is the server's fault (-32603, logged). */
async function shaped (shape: WorkResultStep, value: unknown, ctx: HandlerContext, tool: string): Promise<Outcome> {
  const method = ctx.method
  try {
    return finalOutcome(toolResultOrEmpty(await shape(value, ctx)), tool, method, ctx.logger)
  } catch (err) {
    // The shaping logs what did not match and throws -32603; anything else it throws is logged here.
    if (err instanceof McpError) return errorOutcome(err)
    ctx.logger.error({ err, method, tool }, `MCP task result of tool ${JSON.stringify(tool)} could not be made into the tool's result`)
    return INTERNAL_ERROR_OUTCOME
  }
}

/** A task ends with a final result object; anything else (not an object, a question, another task) is the server's fault. */
function finalOutcome (result: unknown, tool: string, method: string, logger: FastifyBaseLogger): Outcome {
  if (isJsonObject(result) && result.resultType !== 'input_required' && result.resultType !== 'task') return { ok: true, result }
  logger.error({ method, tool }, `MCP task of tool ${JSON.stringify(tool)} returned a result that is not a final object (ask with ctx.elicit inside a task)`)
  return INTERNAL_ERROR_OUTCOME
}
