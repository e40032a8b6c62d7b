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

/** A client's name in a message, unquoted (`Unknown tool: x`): a string cut to `QUOTED_CHARS`, anything else by its kind. */
export function mention (value: unknown): string {
  return typeof value === 'string' ? clip(value) : describe(value)
}

/** Problems listed in one message; the rest are counted ("and N more"). */
export const LISTED_PROBLEMS = 10
/** Characters of one problem line kept (its path quotes a client's keys; a validator may quote a value). */
const PROBLEM_CHARS = 200

/**
 * A validator's problem lines as one message part: at most `LISTED_PROBLEMS`
 * lines, each cut to a few hundred characters, then how many more there
 * were (`more` beyond `lines`), or, when the check `stopped` at the first,
 * that the rest were not looked for. 40,000 unknown properties must not
 * come back as 1.5 MiB of text.
 */
export function listProblems (lines: readonly string[], more = 0, stopped = false): string {
  const shown = lines.slice(0, LISTED_PROBLEMS).map((line) => line.length > PROBLEM_CHARS ? line.slice(0, PROBLEM_CHARS) + '…' : line)
  if (stopped) return shown.join('; ') + '; further problems not looked for'
  const rest = more + lines.length - shown.length
  return shown.join('; ') + (rest > 0 ? `; and ${rest} more` : '')
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
