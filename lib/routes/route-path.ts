/**
 * A route's path pattern (`/users/:id`, `/files/*`, `/range/:from-:to`,
 * `/at/:n(^\\d+)`) read once into pieces, and filled with argument values
 * to make the URL of one call. Each value is percent-encoded, so it stays
 * inside its parameter: it can neither add a path segment nor a query. A
 * value that is `.` or `..` is refused: the URL parser would read it as a
 * step up and reach another route. In a segment holding several parameters
 * (`:from-:to`) the router splits at the literal text between them, which
 * percent-encoding does not hide (it decodes first): a value holding that
 * text is refused, as it would move the split.
 */
export interface PathPattern {
  /** Literal text and parameter names, in order. */
  readonly pieces: ReadonlyArray<{ literal: string } | { param: string }>
  readonly params: readonly string[]
  /** For a parameter sharing its segment with another: the literal text of that segment, which its value may not hold. */
  readonly separators: ReadonlyMap<string, readonly string[]>
}

/** `:name`, with an optional `(regex)`; `::` is a literal colon. */
const PARAM = /::|:([A-Za-z0-9_$]+)(\((?:\\.|[^)])*\))?|\*/g

export function parsePath (url: string): PathPattern {
  const pieces: Array<{ literal: string } | { param: string }> = []
  const params: string[] = []
  let at = 0
  let literal = ''
  for (const match of url.matchAll(PARAM)) {
    literal += url.slice(at, match.index)
    at = match.index + match[0].length
    if (match[0] === '::') {
      literal += ':'
      continue
    }
    if (literal !== '') pieces.push({ literal })
    literal = ''
    const name = match[0] === '*' ? '*' : match[1] as string
    pieces.push({ param: name })
    params.push(name)
  }
  literal += url.slice(at)
  if (literal !== '') pieces.push({ literal })
  return { pieces, params, separators: segmentSeparators(pieces) }
}

/** The literal text around the parameters of each segment that holds more than one. */
function segmentSeparators (pieces: PathPattern['pieces']): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let names: string[] = []
  let texts: string[] = []
  const close = (): void => {
    if (names.length > 1) {
      const kept = texts.filter((text) => text !== '')
      for (const name of names) out.set(name, kept)
    }
    names = []
    texts = []
  }
  for (const piece of pieces) {
    if ('param' in piece) {
      names.push(piece.param)
      continue
    }
    // A literal may end one segment and start others: split at each "/".
    const parts = piece.literal.split('/')
    texts.push(parts[0] as string)
    for (const part of parts.slice(1)) {
      close()
      texts.push(part)
    }
  }
  close()
  return out
}

/** Why a value cannot fill its parameter, or undefined when it can. */
export function badPathValue (pattern: PathPattern, name: string, value: string): string | undefined {
  if (value === '') return `${name}: a path parameter cannot be empty`
  const separator = pattern.separators.get(name)?.find((text) => value.includes(text))
  if (separator !== undefined) return `${name}: cannot hold "${separator}", which separates the parameters of its path segment`
  if (name === '*') {
    if (value.split('/').some((segment) => segment === '.' || segment === '..')) return `${name}: "." and ".." segments are not allowed`
  } else if (value === '.' || value === '..') {
    return `${name}: "." and ".." are not allowed`
  }
  return undefined
}

/** The path with every parameter filled (values already checked by badPathValue). */
export function fillPath (pattern: PathPattern, values: Readonly<Record<string, string>>): string {
  let out = ''
  for (const piece of pattern.pieces) {
    if ('literal' in piece) out += piece.literal
    else if (piece.param === '*') out += (values['*'] as string).split('/').map(encodeURIComponent).join('/')
    else out += encodeURIComponent(values[piece.param] as string)
  }
  return out
}
