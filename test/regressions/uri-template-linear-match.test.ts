// Guards issue 22 item 2 (one request stalled the event loop): a URI
// template with two or more variables was matched by a backtracking regular
// expression, cubic for `db://{schema}.{table}.{column}` (636 ms on 1,600
// characters) and quadratic for `kv://{key}-{value}` (695 ms on 40,000
// dashes); a legacy URI has no header bound. Matching is now linear in the
// URI, with the same results: the earlier variable takes the most where a
// URI splits more than one way. The time bound is generous (the linear
// matcher takes a few milliseconds here; the old one minutes). A URI over
// MAX_TEMPLATE_URI_LENGTH matches nothing at all (template-uri-length-bound),
// so the hostile URIs here are as long as one that is matched can be.
import fc from 'fast-check'
import t from 'tap'
import { MAX_TEMPLATE_URI_LENGTH, parseUriTemplate } from '../../lib/definitions/uri-template.js'

const STALL_MS = 2000

/** Half the longest URI that is matched: a run of two-character pieces fits it with room for a prefix and an end. */
const HALF = Math.floor((MAX_TEMPLATE_URI_LENGTH - 16) / 2)

const HOSTILE: Array<[string, string]> = [
  ['db://{schema}.{table}.{column}', 'db://' + 'a.'.repeat(HALF)],
  ['db://{schema}.{table}.{column}', 'db://' + '.'.repeat(2 * HALF) + '/'],
  ['kv://{key}-{value}', 'kv://' + '-'.repeat(2 * HALF)],
  ['kv://{key}-{value}', 'kv://' + '-'.repeat(2 * HALF) + '#'],
  ['x://{a}{b}{c}{d}{e}', 'x://' + 'a'.repeat(2 * HALF) + '/'],
  ['x://{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}', 'x://' + 'a.'.repeat(HALF)]
]

t.test('templates with several variables match the longest hostile URIs without stalling', async (t) => {
  for (const [template, uri] of HOSTILE) {
    const compiled = parseUriTemplate(template, 'test')
    const started = performance.now()
    compiled.match(uri)
    const ms = performance.now() - started
    t.ok(uri.length <= MAX_TEMPLATE_URI_LENGTH, `${uri.length} characters: within the bound, so the matcher runs`)
    t.ok(ms < STALL_MS, `${template} on ${uri.length} characters: ${ms.toFixed(1)} ms`)
  }
})

/** The backtracking regular expression the matcher replaced (safe on short URIs), as an oracle. */
function oracle (template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = []
  let pattern = '^'
  let last = 0
  for (const found of template.matchAll(/\{([^{}]*)\}/g)) {
    names.push(found[1] as string)
    pattern += template.slice(last, found.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '([^/?#]+)'
    last = (found.index as number) + found[0].length
  }
  pattern += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'
  const found = new RegExp(pattern).exec(uri)
  if (found === null) return undefined
  const values: Record<string, string> = {}
  for (let i = 0; i < names.length; i++) {
    try {
      values[names[i] as string] = decodeURIComponent(found[i + 1] as string)
    } catch {
      return undefined
    }
    if (/[/\\\u0000-\u001f\u007f-\u009f]|^\.\.?$/.test(values[names[i] as string] as string)) return undefined
  }
  return values
}

t.test('the same variables as a backtracking match, on short URIs', async (t) => {
  const piece = fc.constantFrom('a', 'b', '.', '-', '/', '?', '#', ':', '%41', '%2F', '%')
  const template = fc.array(fc.oneof(fc.constantFrom('{x}', '{y}', '{z}'), piece), { minLength: 1, maxLength: 8 })
    .map((parts) => parts.filter((p, i) => !p.startsWith('{') || parts.indexOf(p) === i).join(''))
    .filter((text) => /\{/.test(text))
  let matched = 0
  fc.assert(fc.property(template, fc.array(piece, { maxLength: 12 }), (text, parts) => {
    const compiled = parseUriTemplate(text, 'test')
    // Half the URIs start like the template, so that many match.
    const uri = (parts.length % 2 === 0 ? text.slice(0, text.indexOf('{')) : '') + parts.join('')
    const got = compiled.match(uri)
    if (got !== undefined) matched++
    return JSON.stringify(got === undefined ? undefined : { ...got }) === JSON.stringify(oracle(text, uri))
  }), { numRuns: 30_000 })
  t.ok(matched > 300, `${matched} URIs matched (the property saw real matches)`)
  t.strictSame({ ...parseUriTemplate('db://{schema}.{table}.{column}', 't').match('db://a.b.c.d') }, { schema: 'a.b', table: 'c', column: 'd' })
  t.strictSame({ ...parseUriTemplate('kv://{key}-{value}', 't').match('kv://a-b-c') }, { key: 'a-b', value: 'c' })
})
