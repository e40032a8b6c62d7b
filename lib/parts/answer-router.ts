/**
 * Forwarding legacy server-to-client answers. In the legacy era a handler's
 * `ctx.elicit()` (or sampling, roots) goes out on the SSE response of the
 * client's POST, and the client POSTs its answer back as a separate HTTP
 * request. Behind a load balancer that POST may land on any instance; the
 * router carries it to the instance whose request waits for it, so no sticky
 * routing is needed.
 *
 * The router mints the ids of those requests, so it can tell from an answer's
 * id where it must go. Ids are unguessable; an answer is only ever matched by
 * its whole id against a request still waiting, so a forged or replayed id
 * reaches nothing.
 *
 * `MemoryAnswerRouter` (the default) serves one process: the answer must come
 * back to it. `RedisAnswerRouter` in the `./redis` entry serves many.
 */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../protocol/jsonrpc.js'

/** Hands an answer POSTed by `caller` to this instance's waiting requests; false when none of that caller's waits for its id. */
export type AnswerReceiver = (answer: JsonObject, caller: string) => boolean

export interface AnswerRouter {
  /** A fresh id for a server-to-client request made by this instance. */
  requestId (): string
  /** Sets where answers meant for this instance go (called once, by the endpoint). */
  attach (receive: AnswerReceiver): void
  /**
   * Forwards a client's answer (a JSON-RPC response object with a string id),
   * with the caller who POSTed it (`callerOf`), to the instance waiting for it. Resolves once handed over or known to
   * have no taker; rejects when the shared medium cannot be reached, so the
   * endpoint can tell the client to send it again.
   */
  forward (answer: JsonObject, caller: string): Promise<void>
  /** Releases what the router holds; later answers reach nothing. */
  close (): Promise<void>
  /** Optional: resolves once the router can forward; awaited at registration, bounded. */
  ready?: () => Promise<void>
}

const FORWARDED: Promise<void> = Promise.resolve()

/** One process: an answer is matched in this process's memory. */
export class MemoryAnswerRouter implements AnswerRouter {
  #receive: AnswerReceiver | undefined

  requestId (): string {
    return randomUUID()
  }

  attach (receive: AnswerReceiver): void {
    this.#receive = receive
  }

  forward (answer: JsonObject, caller: string): Promise<void> {
    this.#receive?.(answer, caller)
    return FORWARDED
  }

  async close (): Promise<void> {
    this.#receive = undefined
  }
}
