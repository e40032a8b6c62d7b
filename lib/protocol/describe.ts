/**
 * How values a client sent appear in error messages: short and safe to
 * build. A message quotes at most a few dozen characters of a client's
 * string (a 1 MB method name must not come back as a 1 MB answer, nor be
 * remembered by the rejection memos), and never serialises a client's
 * object (a value nested thousands deep makes JSON.stringify throw).
 */

/** Characters of a client's string kept in a message. */
export const QUOTED_CHARS = 64

/** A client's string cut to `QUOTED_CHARS`, with an ellipsis when cut. */
export function clip (text: string): string {
  return text.length > QUOTED_CHARS ? text.slice(0, QUOTED_CHARS) + '…' : text
}

/** A client's string as a JSON string literal, cut to `QUOTED_CHARS` with an ellipsis. */
export function quote (text: string): string {
  return JSON.stringify(clip(text))
}

/** A client's value for a message: a quoted (short) string, a number or boolean as is, else its kind. */
export function describe (value: unknown): string {
  switch (typeof value) {
    case 'string': return quote(value)
    case 'number':
    case 'boolean': return String(value)
    case 'undefined': return 'nothing'
    default: return value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object'
  }
}
