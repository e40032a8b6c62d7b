/**
 * `serveStdio(app)`: the app's MCP endpoint over stdio, for hosts that
 * launch a local server as a child process. Each line of stdin goes through
 * the same endpoint as a POST over the network (lib/stdio/endpoint-call.ts),
 * so tools, hooks, authorization, limits, telemetry and logging are written
 * once and behave the same; stdout carries the answers and nothing else.
 *
 * Lifecycle: when stdin ends, requests in flight (and those read but
 * still waiting for a slot, lib/stdio/intake.ts) get `drainMs` to be
 * answered, then the app closes (its `onClose` hooks run; the endpoint
 * cancels what is left and ends listen streams) and the transport lets go
 * of stdin and stdout, so the process exits once nothing else holds it.
 * SIGINT and SIGTERM close at once, then the signal is raised again.
 */
import { constants as osConstants } from 'node:os'
import type { FastifyInstance } from 'fastify'
import type { McpDecorator } from '../endpoint/mcp-decorator.js'
import { DEFAULT_BODY_LIMIT } from '../options.js'
import type { Era } from '../protocol/methods.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { FST_MCP_STDIO_AUTHORIZATION, FST_MCP_STDIO_LOGGER_ON_STDOUT, FST_MCP_STDIO_NO_ENDPOINT } from '../errors.js'
import { StdioConnection } from './connection.js'
import { Intake } from './intake.js'
import { idInHead, readLines } from './line-reader.js'
import { LineSocket } from './line-request.js'
import { BASE_HEADERS } from './message-headers.js'
import { MessageWriter } from './message-writer.js'
import { checkStdioOptions, type StdioOptions } from './stdio-options.js'
import { guardStdout, loggerWritesToFd1 } from './stdout-guard.js'

export interface StdioServer {
  /** The era the connection speaks, once its first `initialize` or modern request was answered. */
  readonly era: Era | undefined
  /** Resolves once the connection has ended and the app is closed. */
  readonly closed: Promise<void>
  /** Ends the connection now: the app closes (cancelling what is in flight) and stdin is let go. */
  close (): Promise<void>
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const
/** How long closing may take after SIGINT or SIGTERM before the signal ends the process anyway. */
const SIGNAL_CLOSE_BOUND_MS = 5_000
/** How long ending a legacy session (its DELETE) may take when the connection closes. */
const END_SESSION_BOUND_MS = 1_000
/** How long a raised signal may stay with other listeners before the process exits with the signal's code. */
const SIGNAL_RAISE_BOUND_MS = 1_000

/**
 * Ends the process with `signal` as a host expects. Another library's
 * listener (signal-exit, say) may still hold the signal; Node's signal
 * handles do not keep the process alive, so without the timer it could end
 * with code 0 before the raised signal is read. Should those listeners
 * swallow it, the shell's code for the signal ends the process.
 */
function raiseAgain (signal: NodeJS.Signals): void {
  setTimeout(() => process.exit(128 + osConstants.signals[signal]), SIGNAL_RAISE_BOUND_MS)
  process.kill(process.pid, signal)
}

/**
 * Serves `app`'s MCP endpoint (fastify-mcp-capabilities registered on it)
 * over stdin and stdout; resolves once reading has started. See
 * docs/stdio.md.
 */
export async function serveStdio (app: FastifyInstance, options: StdioOptions = {}): Promise<StdioServer> {
  const settings = checkStdioOptions(options)
  await app.ready()
  const mcp = (app as { mcp?: Partial<Pick<McpDecorator, 'path' | 'era' | 'authorization' | 'bodyLimit'>> }).mcp
  if (mcp === undefined || typeof mcp.path !== 'string') throw new FST_MCP_STDIO_NO_ENDPOINT()
  const maxMessageBytes = settings.maxMessageBytes ?? mcp.bodyLimit ?? DEFAULT_BODY_LIMIT
  // No HTTP headers on stdio: a configured policy is never bypassed, the local principal brings its token.
  if (mcp.authorization !== undefined && (settings.headers.authorization ?? '') === '') throw new FST_MCP_STDIO_AUTHORIZATION()
  const { input, output } = settings
  const onStdout = output === process.stdout
  if (onStdout && loggerWritesToFd1(app.log, process.stdout)) throw new FST_MCP_STDIO_LOGGER_ON_STDOUT()

  const guard = onStdout ? guardStdout(process.stdout, process.stderr) : undefined
  const log = app.log.child({ transport: 'stdio' })
  let closing: Promise<void> | undefined

  const writer = new MessageWriter(output, guard?.write ?? ((line) => output.write(line)), (err) => {
    if (err !== undefined) log.warn({ err }, 'MCP stdio: the output failed; closing')
    void close('output closed', 0)
  })
  const connection = new StdioConnection({
    target: { app, path: mcp.path, socket: new LineSocket() },
    headers: { ...BASE_HEADERS, ...settings.headers },
    writer,
    log
  })
  const intake = new Intake(connection, settings.maxInFlight)

  const onSignal = (signal: NodeJS.Signals): void => {
    // The signal is raised again once closed, or after SIGNAL_CLOSE_BOUND_MS if closing hangs: a wait that no
    // handle holds would otherwise let the process end with code 0 instead of the signal a host expects.
    const bound = setTimeout(() => {
      log.warn({ signal }, 'MCP stdio: closing did not finish in time; ending with the signal')
      raiseAgain(signal)
    }, SIGNAL_CLOSE_BOUND_MS)
    void close(`received ${signal}`, 0).finally(() => {
      clearTimeout(bound)
      raiseAgain(signal)
    })
  }
  if (settings.handleSignals) for (const signal of SIGNALS) process.once(signal, onSignal)

  function close (reason: string, drainMs: number): Promise<void> {
    closing ??= (async () => {
      log.info({ reason }, 'MCP stdio connection closing')
      // The reading loop ends; a paused stdin would keep the process alive.
      if (!input.destroyed) input.destroy()
      await intake.drain(drainMs)
      // Requests still waiting for a slot are dropped with the calls in flight: the app is about to close.
      intake.discard()
      try {
        await connection.endSession(END_SESSION_BOUND_MS)
      } catch (err) {
        log.warn({ err }, 'MCP stdio: ending the legacy session failed')
      }
      try {
        await app.close()
      } catch (err) {
        log.error({ err }, 'MCP stdio: closing the app failed')
      }
      connection.cancelAll()
      writer.abandon()
      await connection.settled()
      writer.release()
      guard?.release()
      if (settings.handleSignals) for (const signal of SIGNALS) process.off(signal, onSignal)
    })()
    return closing
  }

  async function read (): Promise<void> {
    for await (const line of readLines(input, maxMessageBytes)) {
      if (closing !== undefined) return
      if (typeof line !== 'string') {
        // Refused unread, like a body over the endpoint's limit; the id, when the head shows it, lets the client fail that request.
        await writer.send(JSON.stringify({ jsonrpc: '2.0', id: idInHead(line.head) ?? null, error: { code: ErrorCode.InvalidRequest, message: `Request body is too large (more than ${maxMessageBytes} bytes)` } }))
        continue
      }
      intake.take(line)
      if (intake.full) await intake.room()
    }
  }

  const reading = read().then(
    () => close('input ended', settings.drainMs),
    (err: unknown) => {
      if (closing === undefined) log.error({ err }, 'MCP stdio: reading the input failed')
      return close('input failed', 0)
    })
  return {
    get era () {
      return connection.era
    },
    closed: reading,
    close: () => close('closed by the application', 0)
  }
}
