/**
 * The one SSE reader of the tests and benchmarks: splits a `text/event-stream`
 * body into events as chunks arrive, and parses an event block (comments for
 * keep-alives, `data:` lines joined and read as JSON).
 */

export interface SseEvent {
  /** The text of a comment line (after the colon), for keep-alives. */
  comment?: string
  /** The parsed JSON of the event's data (absent for an empty `data:`, the priming event). */
  data?: any
  /** The event's `id:` field. */
  id?: string
  /** The raw event block, to check framing. */
  raw: string
}

/** Cuts a stream of text chunks into raw event blocks (without the blank line that ends each). */
export class SseSplitter {
  #buffer = ''

  /** The blocks completed by `chunk`, in order. */
  push (chunk: string): string[] {
    this.#buffer += chunk
    const blocks: string[] = []
    let end: number
    while ((end = this.#buffer.indexOf('\n\n')) !== -1) {
      blocks.push(this.#buffer.slice(0, end))
      this.#buffer = this.#buffer.slice(end + 2)
    }
    return blocks
  }

  /** Unparsed trailing text (empty once a well-framed stream ends). */
  get rest (): string {
    return this.#buffer
  }
}

export function parseSseBlock (block: string): SseEvent {
  const event: SseEvent = { raw: block }
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
    else if (line.startsWith('id:')) event.id = line.slice(3).replace(/^ /, '')
  }
  const text = data.join('\n')
  if (text !== '') event.data = JSON.parse(text)
  return event
}

/** Parses a complete SSE body. */
export function parseSse (text: string): SseEvent[] {
  const splitter = new SseSplitter()
  const blocks = splitter.push(text)
  blocks.push(splitter.rest)
  return blocks.filter((block) => block.length > 0).map(parseSseBlock)
}
