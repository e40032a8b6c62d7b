/**
 * Authorization-server documents (metadata, key sets) read with a size cap.
 * They come from another server, so their size is not ours to trust: the
 * body is read as a stream and the read stops, and the connection is
 * dropped, at the first chunk past the cap. A 40 MB key set then costs
 * about the cap, never the whole document nor its parsed form.
 */

/** Largest metadata document read (they are a few KiB). */
export const MAX_METADATA_BYTES = 256 * 1024
/** Largest key set read (a few keys are a few KiB; providers with many keys stay far below). */
export const MAX_KEY_SET_BYTES = 1024 * 1024

export class DocumentTooLargeError extends Error {
  constructor (url: string, maxBytes: number) {
    super(`${url}: the document is larger than ${maxBytes} bytes`)
    this.name = 'DocumentTooLargeError'
  }
}

/** The body of `response`, at most `maxBytes` of it; rejects (and cancels the rest) past that. */
export async function readBounded (response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const body = response.body
  // A declared length is checked before anything is read (unless compressed: the cap counts decoded bytes).
  const declared = Number(response.headers.get('content-length'))
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity'
  if (!encoded && declared > maxBytes) {
    body?.cancel().catch(() => {})
    throw new DocumentTooLargeError(url, maxBytes)
  }
  if (body === null) return new Uint8Array(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      // Not awaited: the connection is dropped, nothing more is read.
      reader.cancel().catch(() => {})
      throw new DocumentTooLargeError(url, maxBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

/**
 * A `fetch` whose successful responses carry a body read with the cap
 * (for `jose`'s key-set fetch, which reads the whole body itself). Other
 * statuses keep no body: their caller only looks at the status.
 */
export function boundedFetch (fetchFn: typeof globalThis.fetch, maxBytes: number): typeof globalThis.fetch {
  return async function fetchBounded (input, init) {
    const response = await fetchFn(input, init)
    const url = input instanceof Request ? input.url : String(input)
    if (!response.ok) {
      response.body?.cancel().catch(() => {})
      return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
    const bytes = await readBounded(response, maxBytes, url)
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}
