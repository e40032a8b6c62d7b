/**
 * Writes MCP messages to the output, one line each. Every producer (an
 * answer being read from the endpoint) awaits the promise `send` returns
 * while the output is full, so a host that reads slowly slows the reading
 * of answers down to its pace instead of growing a queue here: the
 * endpoint's own stream buffers (bounded by `limits.maxStreamBufferBytes`)
 * hold what waits.
 */
import type { Writable } from 'node:stream'

export class MessageWriter {
  readonly #output: Writable
  readonly #write: (line: string) => boolean
  #drained: Promise<void> | undefined
  #stopWaiting: (() => void) | undefined
  #gone = false
  readonly #onGone: (err: Error | undefined) => void

  /**
   * `write` is the output's own write (the stdout guard hands the original
   * one over); `onGone` hears the output fail or close (the host went away).
   */
  constructor (output: Writable, write: (line: string) => boolean, onGone: (err: Error | undefined) => void) {
    this.#output = output
    this.#write = write
    this.#onGone = onGone
    output.on('error', this.#fail)
    output.on('close', this.#closed)
  }

  /** True once the output can take no more (it failed or closed). */
  get gone (): boolean {
    return this.#gone
  }

  /** Writes one message (serialised JSON, no newline in it); resolves when the output can take more. */
  send (json: string): Promise<void> | undefined {
    if (this.#gone) return undefined
    // JSON from JSON.stringify has no raw newline; a message made otherwise is normalised, never split.
    const line = json.includes('\n') || json.includes('\r') ? JSON.stringify(JSON.parse(json)) : json
    if (this.#write(line + '\n')) return undefined
    this.#drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.#output.off('drain', done)
        this.#output.off('close', done)
        this.#drained = undefined
        this.#stopWaiting = undefined
        resolve()
      }
      this.#stopWaiting = done
      this.#output.on('drain', done)
      this.#output.on('close', done)
    })
    return this.#drained
  }

  /**
   * Writes nothing more and lets every producer waiting for the output go:
   * the connection is closing and its calls are cancelled, so a host that
   * stopped reading must not keep the process waiting on a drain that never
   * comes (what was written stays in the output's buffer).
   */
  abandon (): void {
    this.#gone = true
    this.#stopWaiting?.()
  }

  /** Stops listening to the output (it stays open: stdout belongs to the process). */
  release (): void {
    this.#output.off('error', this.#fail)
    this.#output.off('close', this.#closed)
  }

  readonly #fail = (err: Error): void => {
    this.#end(err)
  }

  readonly #closed = (): void => {
    this.#end(undefined)
  }

  #end (err: Error | undefined): void {
    if (this.#gone) return
    this.#gone = true
    this.#onGone(err)
  }
}
