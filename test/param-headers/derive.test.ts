// The x-mcp-header constraints of the transport spec ("Schema Extension"),
// one case each, and the header-body comparison of "Server Validation".
import fc from 'fast-check'
import t from 'tap'
import { annotationsOf, deriveParamHeaders, findParamHeaderMismatch, type ParamHeader } from '../../lib/endpoint/param-headers.js'
import { encodeHeaderValue } from '../helpers/mcp-inject.js'

function derive (schema: unknown): { found: ParamHeader[], problems: string[] } {
  const problems: string[] = []
  return { found: annotationsOf('tool', schema, problems), problems }
}

const prop = (type: unknown, header: unknown): Record<string, unknown> => ({ type, 'x-mcp-header': header })

t.test('valid annotations: top-level and nested properties, nullable primitive types', async (t) => {
  const { found, problems } = derive({
    type: 'object',
    properties: {
      region: prop('string', 'Region'),
      count: prop('integer', 'Count'),
      flag: prop(['boolean', 'null'], 'Flag'),
      target: { type: 'object', properties: { zone: prop('string', 'Zone') } }
    }
  })
  t.strictSame(problems, [])
  t.strictSame(found, [
    { header: 'mcp-param-region', label: 'Mcp-Param-Region', path: ['region'] },
    { header: 'mcp-param-count', label: 'Mcp-Param-Count', path: ['count'] },
    { header: 'mcp-param-flag', label: 'Mcp-Param-Flag', path: ['flag'] },
    { header: 'mcp-param-zone', label: 'Mcp-Param-Zone', path: ['target', 'zone'] }
  ])
})

t.test('each violated constraint is reported and the annotation left out', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['empty name', { type: 'object', properties: { a: prop('string', '') } }, /HTTP token/],
    ['not a string', { type: 'object', properties: { a: prop('string', 7) } }, /HTTP token/],
    ['space', { type: 'object', properties: { a: prop('string', 'My Region') } }, /HTTP token/],
    ['CR LF', { type: 'object', properties: { a: prop('string', 'A\r\nX-Evil: 1') } }, /HTTP token/],
    ['separator', { type: 'object', properties: { a: prop('string', 'a:b') } }, /HTTP token/],
    ['non-ASCII', { type: 'object', properties: { a: prop('string', 'Région') } }, /HTTP token/],
    ['type number', { type: 'object', properties: { a: prop('number', 'A') } }, /type must be/],
    ['type object', { type: 'object', properties: { a: prop('object', 'A') } }, /type must be/],
    ['no type', { type: 'object', properties: { a: { 'x-mcp-header': 'A' } } }, /type must be/],
    ['two types', { type: 'object', properties: { a: prop(['string', 'integer'], 'A') } }, /type must be/],
    ['under items', { type: 'object', properties: { a: { type: 'array', items: prop('string', 'A') } } }, /reachable/],
    ['under oneOf', { type: 'object', oneOf: [{ properties: { a: prop('string', 'A') } }] }, /reachable/],
    ['under anyOf', { type: 'object', properties: { a: { anyOf: [prop('string', 'A')] } } }, /reachable/],
    ['under allOf', { allOf: [{ type: 'object', properties: { a: prop('string', 'A') } }] }, /reachable/],
    ['under not', { type: 'object', properties: { a: { type: 'string', not: prop('string', 'A') } } }, /reachable/],
    ['under if/then', { type: 'object', if: { properties: { a: prop('string', 'A') } } }, /reachable/],
    ['under $defs', { type: 'object', $defs: { a: prop('string', 'A') }, properties: { a: { $ref: '#/$defs/a' } } }, /reachable/],
    ['on the root', { type: 'string', 'x-mcp-header': 'A' }, /reachable/]
  ]
  for (const [name, schema, why] of cases) {
    const { found, problems } = derive(schema)
    t.strictSame(found, [], `${name}: not enforced`)
    t.equal(problems.length, 1, `${name}: one problem`)
    t.match(problems[0], why, `${name}: ${problems[0] ?? ''}`)
    t.match(problems[0], /^tool "tool": /, `${name}: names the tool`)
  }
})

t.test('names are unique case-insensitively: the second is reported, the first kept', async (t) => {
  const { found, problems } = derive({ type: 'object', properties: { a: prop('string', 'Region'), b: prop('string', 'REGION') } })
  t.strictSame(found.map((f) => f.path), [['a']])
  t.equal(problems.length, 1)
  t.match(problems[0], /duplicates "Region"/)
})

t.test('data keywords are not schemas; cycles and shared subschemas are handled', async (t) => {
  const data = derive({ type: 'object', properties: { a: { type: 'object', default: { 'x-mcp-header': 'X' } } }, examples: [{ 'x-mcp-header': 'Y' }] })
  t.strictSame(data, { found: [], problems: [] }, 'annotation-shaped data is ignored')

  const shared = prop('string', 'Same')
  const twice = derive({ type: 'object', properties: { a: shared, b: { type: 'object', properties: { c: shared } } } })
  t.strictSame(twice.found.map((f) => f.path), [['a']], 'a shared subschema is seen at both paths (the second is a duplicate name)')
  t.equal(twice.problems.length, 1)

  const cyclic: Record<string, any> = { type: 'object', properties: { r: prop('string', 'R') } }
  cyclic.properties.self = cyclic
  const result = derive(cyclic)
  t.strictSame(result.found.map((f) => f.path), [['r']], 'a cyclic schema terminates')
})

t.test('deriveParamHeaders maps tool names to annotations, skipping junk entries', async (t) => {
  const derived = deriveParamHeaders({
    tools: [
      null,
      { name: 42 },
      { name: 'plain', inputSchema: { type: 'object' } },
      { name: 'sql', inputSchema: { type: 'object', properties: { region: prop('string', 'Region'), bad: prop('number', 'N') } } },
      { name: 'sql', inputSchema: { type: 'object', properties: { other: prop('string', 'Other') } } }
    ]
  })
  t.strictSame([...derived.tools.keys()], ['sql'])
  t.strictSame(derived.tools.get('sql')?.map((a) => a.label), ['Mcp-Param-Region'], 'the first definition of a name wins')
  t.equal(derived.problems.length, 1)
  t.match(derived.problems[0], /tool "sql".*"bad"/)
  t.strictSame(deriveParamHeaders({ tools: 'nope' }).tools.size, 0)
})

const REGION: ParamHeader = { header: 'mcp-param-region', label: 'Mcp-Param-Region', path: ['region'] }
const COUNT: ParamHeader = { header: 'mcp-param-count', label: 'Mcp-Param-Count', path: ['count'] }
const FLAG: ParamHeader = { header: 'mcp-param-flag', label: 'Mcp-Param-Flag', path: ['flag'] }
const ZONE: ParamHeader = { header: 'mcp-param-zone', label: 'Mcp-Param-Zone', path: ['target', 'zone'] }

t.test('the spec table: provided -> must match; null or absent -> not expected', async (t) => {
  const check = (headers: Record<string, string>, args: unknown): string | undefined => findParamHeaderMismatch(headers, [REGION, COUNT, FLAG, ZONE], args)
  t.equal(check({ 'mcp-param-region': 'us-west1' }, { region: 'us-west1' }), undefined, 'matching string')
  t.equal(check({}, {}), undefined, 'nothing provided, nothing expected')
  t.equal(check({}, { region: null, count: null }), undefined, 'null values need no header')
  t.equal(check({}, undefined), undefined, 'no arguments at all')
  t.match(check({}, { region: 'us-west1' }), /Mcp-Param-Region header is required/, 'omitted header, value in body')
  t.match(check({ 'mcp-param-region': 'us-east1' }, { region: 'us-west1' }), /"us-east1" does not match body value "us-west1"/)
  t.match(check({ 'mcp-param-region': 'us-west1' }, {}), /present but the arguments carry no value/, 'a header the body does not back')
  t.match(check({ 'mcp-param-region': 'us-west1' }, { region: null }), /present but/, 'a header for a null value')
  t.equal(check({ 'mcp-param-zone': 'a' }, { target: { zone: 'a' } }), undefined, 'nested path')
  t.match(check({}, { target: { zone: 'a' } }), /Mcp-Param-Zone header is required/)
  t.equal(check({}, { target: 'a' }), undefined, 'a path through a non-object has no value')
  t.equal(check({}, JSON.parse('{"__proto__": {"region": "x"}}')), undefined, 'only own properties count')
})

t.test('integers compare numerically, booleans as true/false', async (t) => {
  const check = (value: string, args: unknown): string | undefined => findParamHeaderMismatch({ 'mcp-param-count': value, 'mcp-param-flag': 'true' }, [COUNT, FLAG], { flag: true, ...args as object })
  t.equal(check('42', { count: 42 }), undefined)
  t.equal(check('42.0', { count: 42 }), undefined, '42.0 equals 42')
  t.equal(check('-7', { count: -7 }), undefined)
  t.match(check('43', { count: 42 }), /does not match/)
  t.match(check('0x2a', { count: 42 }), /does not match/, 'not a decimal number')
  t.match(check(' ', { count: 0 }), /does not match/, 'blank is not zero')
  t.equal(check('42', { count: '42' }), undefined, 'a string body value compares as text')
  t.match(check('42', { count: { n: 42 } }), /does not match/, 'an object cannot be mirrored')
  t.match(findParamHeaderMismatch({ 'mcp-param-flag': 'True' }, [FLAG], { flag: true }), /does not match/, 'boolean text is lower case')
  t.equal(findParamHeaderMismatch({ 'mcp-param-flag': 'false' }, [FLAG], { flag: false }), undefined)
})

t.test('encoded values are decoded; invalid characters and malformed base64 are rejected', async (t) => {
  const check = (value: string, region: unknown): string | undefined => findParamHeaderMismatch({ 'mcp-param-region': value }, [REGION], { region })
  t.equal(check('=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'), undefined, 'non-ASCII through base64')
  t.equal(check('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='), undefined, 'a sentinel-shaped literal, encoded')
  t.equal(check('SGVsbG8=', 'SGVsbG8='), undefined, 'no sentinel: literal')
  t.match(check('=?base64?SGVsbG8?=', 'Hello'), /malformed base64/, 'bad padding')
  t.match(check('=?base64?SGVs!!!bG8=?=', 'Hello'), /malformed base64/, 'bad alphabet')
  t.match(check('caf\u00e9', 'café'), /invalid characters/, 'raw obs-text byte')
  t.match(check('a\u0000b', 'a\u0000b'), /invalid characters/, 'control character')
})

t.test('property: the client encoding of any string matches it, and no other string', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
    const headers = { 'mcp-param-region': encodeHeaderValue(a) }
    if (findParamHeaderMismatch(headers, [REGION], { region: a }) !== undefined) return false
    return a === b || findParamHeaderMismatch(headers, [REGION], { region: b }) !== undefined
  }), { numRuns: 500 })
  t.pass('500 random pairs')
})
