import t from 'tap'
import fc from 'fast-check'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDiscoverResult } from '../lib/protocol/discover-result.js'
import { SERVER_INFO_META } from '../lib/protocol/meta.js'
import type { DiscoverResultParse, ParsedDiscoverResult } from '../lib/protocol/discover-result.js'
import { SPEC_DIR } from './helpers/paths.js'
import { specValidator } from './helpers/spec-schemas.js'

const validImplementation = specValidator('2026-07-28', 'Implementation')
const validDiscoverResult = specValidator('2026-07-28', 'DiscoverResult')

const base = (): Record<string, unknown> => ({
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 1000,
  cacheScope: 'public'
})

function ok (parsed: DiscoverResultParse): ParsedDiscoverResult {
  if (!parsed.ok) throw new Error(`expected ok, got: ${parsed.error.message}`)
  return parsed.result
}

function isPlainObject (v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The invariants every ok result keeps, checked against the input it came from. */
function checkInvariants (input: unknown, parsed: DiscoverResultParse): void {
  if (!parsed.ok) {
    if (parsed.error.reason !== 'invalid_discover_result') throw new Error('wrong reason')
    if (typeof parsed.error.message !== 'string' || parsed.error.message === '') throw new Error('no message')
    return
  }
  const r = parsed.result
  const raw = input as Record<string, unknown>
  if (r.raw !== input) throw new Error('raw is not the input')
  const ttl = raw.ttlMs
  const expectedTtl = typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : 0
  if (!Number.isSafeInteger(r.ttlMs) || r.ttlMs < 0 || !Object.is(r.ttlMs, expectedTtl + 0)) throw new Error(`ttlMs ${r.ttlMs} for ${String(ttl)}`)
  if ((r.cacheScope === 'public') !== (raw.cacheScope === 'public')) throw new Error('cacheScope')
  if (r.cacheScope !== 'public' && r.cacheScope !== 'private') throw new Error('cacheScope value')
  if (JSON.stringify(r.supportedVersions) !== JSON.stringify(raw.supportedVersions)) throw new Error('supportedVersions')
  if (r.serverInfo !== null && !validImplementation(r.serverInfo)) throw new Error(`serverInfo invalid: ${JSON.stringify(validImplementation.errors)}`)
  if (r.instructions !== null && typeof r.instructions !== 'string') throw new Error('instructions')
  if (!isPlainObject(r.meta) || !isPlainObject(r.capabilities)) throw new Error('meta/capabilities')
  if (r.capabilities !== raw.capabilities) throw new Error('capabilities not kept')
}

t.test('every rule of the lenient reader (lib/protocol/discover-result.ts)', async t => {
  // [name, patch applied to a valid result, expected: 'invalid' | check on the result]
  type Check = 'invalid' | ((r: ParsedDiscoverResult) => void)
  const cases: Array<[string, Record<string, unknown>, Check]> = [
    // supportedVersions: an array of strings
    ['supportedVersions absent', { supportedVersions: undefined }, 'invalid'],
    ['supportedVersions a string', { supportedVersions: '2026-07-28' }, 'invalid'],
    ['supportedVersions with a number', { supportedVersions: ['2026-07-28', 20260728] }, 'invalid'],
    ['supportedVersions with null', { supportedVersions: [null] }, 'invalid'],
    ['supportedVersions sparse', { supportedVersions: Array(2) }, 'invalid'],
    ['supportedVersions an object', { supportedVersions: { 0: '2026-07-28', length: 1 } }, 'invalid'],
    ['supportedVersions empty', { supportedVersions: [] }, r => t.same(r.supportedVersions, [])],
    ['supportedVersions order kept', { supportedVersions: ['2026-07-28', '2025-11-25', 'x'] }, r => t.same(r.supportedVersions, ['2026-07-28', '2025-11-25', 'x'])],
    // capabilities: an object
    ['capabilities absent', { capabilities: undefined }, 'invalid'],
    ['capabilities null', { capabilities: null }, 'invalid'],
    ['capabilities an array', { capabilities: [] }, 'invalid'],
    ['capabilities a string', { capabilities: 'tools' }, 'invalid'],
    ['capabilities true', { capabilities: true }, 'invalid'],
    ['capabilities empty object', { capabilities: {} }, r => t.same(r.capabilities, {})],
    // resultType: absent or "complete"
    ['resultType absent', { resultType: undefined }, r => t.same(r.supportedVersions, ['2026-07-28'])],
    ['resultType complete', { resultType: 'complete' }, r => t.equal(r.ttlMs, 1000)],
    ['resultType input_required', { resultType: 'input_required' }, 'invalid'],
    ['resultType Complete (case)', { resultType: 'Complete' }, 'invalid'],
    ['resultType null', { resultType: null }, 'invalid'],
    ['resultType 1', { resultType: 1 }, 'invalid'],
    // ttlMs: absent, negative, fractional, non-numeric, NaN or infinite read as 0
    ['ttlMs absent', { ttlMs: undefined }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs negative', { ttlMs: -1 }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs fractional', { ttlMs: 1.5 }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs numeric string', { ttlMs: '60000' }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs boxed number', { ttlMs: Object(60000) }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs null', { ttlMs: null }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs true', { ttlMs: true }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs NaN', { ttlMs: NaN }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs Infinity', { ttlMs: Infinity }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs -Infinity', { ttlMs: -Infinity }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs beyond safe integers', { ttlMs: 2 ** 53 }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs -0', { ttlMs: -0 }, r => t.ok(Object.is(r.ttlMs, 0))],
    ['ttlMs 0', { ttlMs: 0 }, r => t.equal(r.ttlMs, 0)],
    ['ttlMs 60000', { ttlMs: 60000 }, r => t.equal(r.ttlMs, 60000)],
    ['ttlMs max safe integer', { ttlMs: Number.MAX_SAFE_INTEGER }, r => t.equal(r.ttlMs, Number.MAX_SAFE_INTEGER)],
    // cacheScope: public only when exactly "public"
    ['cacheScope public', { cacheScope: 'public' }, r => t.equal(r.cacheScope, 'public')],
    ['cacheScope private', { cacheScope: 'private' }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope absent', { cacheScope: undefined }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope PUBLIC', { cacheScope: 'PUBLIC' }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope " public"', { cacheScope: ' public' }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope unknown', { cacheScope: 'shared' }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope boxed', { cacheScope: Object('public') }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope array', { cacheScope: ['public'] }, r => t.equal(r.cacheScope, 'private')],
    ['cacheScope null', { cacheScope: null }, r => t.equal(r.cacheScope, 'private')],
    // instructions: string or null
    ['instructions string', { instructions: 'Use get_weather.' }, r => t.equal(r.instructions, 'Use get_weather.')],
    ['instructions empty string', { instructions: '' }, r => t.equal(r.instructions, '')],
    ['instructions absent', { instructions: undefined }, r => t.equal(r.instructions, null)],
    ['instructions number', { instructions: 42 }, r => t.equal(r.instructions, null)],
    // serverInfo from _meta, null when absent or malformed
    ['serverInfo absent (no _meta)', { _meta: undefined }, r => t.equal(r.serverInfo, null)],
    ['serverInfo absent (_meta without it)', { _meta: { other: 1 } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo at the top level is not read', { serverInfo: { name: 'a', version: '1' } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo a string', { _meta: { [SERVER_INFO_META]: 'srv' } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo an array', { _meta: { [SERVER_INFO_META]: ['srv', '1'] } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo without name', { _meta: { [SERVER_INFO_META]: { version: '1' } } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo without version', { _meta: { [SERVER_INFO_META]: { name: 'srv' } } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo numeric version', { _meta: { [SERVER_INFO_META]: { name: 'srv', version: 1 } } }, r => t.equal(r.serverInfo, null)],
    ['serverInfo minimal', { _meta: { [SERVER_INFO_META]: { name: 'srv', version: '1' } } }, r => t.same(r.serverInfo, { name: 'srv', version: '1' })],
    ['serverInfo full', {
      _meta: {
        [SERVER_INFO_META]: {
          name: 'srv',
          version: '1',
          title: 'Server',
          description: 'd',
          websiteUrl: 'https://example.com/srv',
          icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }]
        }
      }
    }, r => t.strictSame(r.serverInfo, {
      name: 'srv',
      version: '1',
      title: 'Server',
      description: 'd',
      websiteUrl: 'https://example.com/srv',
      icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }]
    })],
    ['serverInfo malformed optional fields are dropped', {
      _meta: {
        [SERVER_INFO_META]: {
          name: 'srv',
          version: '1',
          title: 5,
          websiteUrl: 'not a url',
          icons: [{ src: 'no scheme' }, { src: 'data:image/png;base64,AAAA', theme: 'blue', sizes: [1] }, 'x'],
          extra: true
        }
      }
    }, r => t.strictSame(r.serverInfo, { name: 'srv', version: '1', icons: [{ src: 'data:image/png;base64,AAAA' }] })],
    // _meta kept (or {}), raw kept
    ['_meta absent reads as {}', { _meta: undefined }, r => t.strictSame(r.meta, {})],
    ['_meta an array reads as {}', { _meta: [1] }, r => t.strictSame(r.meta, {})],
    ['_meta kept', { _meta: { 'x.example/trace': 'abc' } }, r => t.strictSame(r.meta, { 'x.example/trace': 'abc' })],
    ['unknown fields stay in raw', { futureField: { a: 1 } }, r => t.same(r.raw.futureField, { a: 1 })]
  ]

  for (const [name, patch, expected] of cases) {
    const input = base()
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete input[k]
      else input[k] = v
    }
    const parsed = parseDiscoverResult(input)
    checkInvariants(input, parsed)
    if (expected === 'invalid') {
      t.equal(parsed.ok, false, `${name}: invalid`)
      if (!parsed.ok) t.equal(parsed.error.reason, 'invalid_discover_result', `${name}: reason`)
    } else {
      t.equal(parsed.ok, true, `${name}: ok`)
      if (parsed.ok) {
        t.equal(parsed.result.raw, input, `${name}: raw is the input`)
        expected(parsed.result)
      }
    }
  }
})

t.test('non-object results are invalid', async t => {
  for (const input of [undefined, null, 0, 1, 'x', true, [], [base()], () => base(), Symbol('x'), 10n]) {
    const parsed = parseDiscoverResult(input)
    t.equal(parsed.ok, false, `${typeof input} ${String(Array.isArray(input))}`)
  }
})

t.test('the whole _meta object and capabilities are kept by reference', async t => {
  const input = base()
  const meta = { [SERVER_INFO_META]: { name: 'srv', version: '1' }, other: 'x' }
  input._meta = meta
  const r = ok(parseDiscoverResult(input))
  t.equal(r.meta, meta)
  t.equal(r.capabilities, input.capabilities)
  t.not(r.supportedVersions, input.supportedVersions, 'supportedVersions is a copy')
  t.not(r.serverInfo, meta[SERVER_INFO_META], 'serverInfo is a clean copy')
})

t.test('spec examples are accepted with their values', async t => {
  const dir = join(SPEC_DIR, '2026-07-28', 'examples')
  const samples: Array<[string, Record<string, any>]> = []
  for (const f of readdirSync(join(dir, 'DiscoverResult'))) {
    samples.push([f, JSON.parse(readFileSync(join(dir, 'DiscoverResult', f), 'utf8'))])
  }
  for (const f of readdirSync(join(dir, 'DiscoverResultResponse'))) {
    samples.push([f, JSON.parse(readFileSync(join(dir, 'DiscoverResultResponse', f), 'utf8')).result])
  }
  t.ok(samples.length >= 2, 'found the examples')
  for (const [name, example] of samples) {
    t.ok(validDiscoverResult(example), `${name} is a valid DiscoverResult`)
    const r = ok(parseDiscoverResult(example))
    t.same(r.supportedVersions, example.supportedVersions, `${name}: versions`)
    t.equal(r.capabilities, example.capabilities, `${name}: capabilities`)
    t.equal(r.ttlMs, example.ttlMs, `${name}: ttlMs`)
    t.equal(r.cacheScope, example.cacheScope, `${name}: cacheScope`)
    t.equal(r.instructions, example.instructions ?? null, `${name}: instructions`)
    t.strictSame(r.serverInfo, example._meta?.[SERVER_INFO_META] ?? null, `${name}: serverInfo`)
    t.equal(r.meta, example._meta, `${name}: meta`)
    // The mutated example is rejected
    t.equal(parseDiscoverResult({ ...example, supportedVersions: [1] }).ok, false, `${name}: mutated rejected`)
  }
})

t.test('hostile inputs never throw', async t => {
  const throwing = (key: string): object => {
    const o: Record<string, unknown> = base()
    Object.defineProperty(o, key, { enumerable: true, get () { throw new Error('boom') } })
    return o
  }
  // A throwing getter on a required field is "absent": invalid. On an optional one: the default.
  t.equal(parseDiscoverResult(throwing('supportedVersions')).ok, false)
  t.equal(parseDiscoverResult(throwing('capabilities')).ok, false)
  t.equal(ok(parseDiscoverResult(throwing('ttlMs'))).ttlMs, 0)
  t.equal(ok(parseDiscoverResult(throwing('cacheScope'))).cacheScope, 'private')
  t.strictSame(ok(parseDiscoverResult(throwing('_meta'))).meta, {})
  t.equal(ok(parseDiscoverResult(throwing('instructions'))).instructions, null)

  // A versions array whose element getter throws
  const versions = ['2026-07-28']
  Object.defineProperty(versions, 0, { get () { throw new Error('boom') } })
  t.equal(parseDiscoverResult({ ...base(), supportedVersions: versions }).ok, false)

  // A serverInfo whose name getter throws
  const info = { version: '1' }
  Object.defineProperty(info, 'name', { enumerable: true, get () { throw new Error('boom') } })
  t.equal(ok(parseDiscoverResult({ ...base(), _meta: { [SERVER_INFO_META]: info } })).serverInfo, null)

  // Proxies: every trap throws; a revoked proxy; a proxy as a nested value
  const evil = new Proxy({}, {
    get () { throw new Error('get') },
    has () { throw new Error('has') },
    getOwnPropertyDescriptor () { throw new Error('gopd') },
    ownKeys () { throw new Error('ownKeys') },
    getPrototypeOf () { throw new Error('proto') }
  })
  t.equal(parseDiscoverResult(evil).ok, false)
  const { proxy: revoked, revoke } = Proxy.revocable({}, {})
  revoke()
  t.equal(parseDiscoverResult(revoked).ok, false)
  t.equal(parseDiscoverResult({ ...base(), capabilities: revoked }).ok, false)
  t.equal(parseDiscoverResult({ ...base(), supportedVersions: revoked }).ok, false)
  t.equal(ok(parseDiscoverResult({ ...base(), _meta: evil })).serverInfo, null)
  t.equal(ok(parseDiscoverResult({ ...base(), _meta: { [SERVER_INFO_META]: evil } })).serverInfo, null)
  const arrayProxy = new Proxy(['2026-07-28'], { get (target, key) { if (key === 'length') throw new Error('len'); return Reflect.get(target, key) } })
  t.equal(parseDiscoverResult({ ...base(), supportedVersions: arrayProxy }).ok, false)
  // A proxy that answers honestly reads like the object it wraps
  t.same(ok(parseDiscoverResult(new Proxy(base(), {}))).supportedVersions, ['2026-07-28'])

  // Cycles
  const cyclic: Record<string, unknown> = base()
  cyclic.self = cyclic
  ;(cyclic.capabilities as Record<string, unknown>).loop = cyclic
  const meta: Record<string, unknown> = { [SERVER_INFO_META]: { name: 'srv', version: '1' } }
  meta.again = meta
  cyclic._meta = meta
  const r = ok(parseDiscoverResult(cyclic))
  t.equal(r.raw, cyclic)
  t.same(r.serverInfo, { name: 'srv', version: '1' })

  // __proto__ keys as JSON.parse makes them: own data properties, never the prototype
  const withProto = JSON.parse('{"__proto__": {"supportedVersions": ["x"], "capabilities": {}}, "ttlMs": 5}')
  t.equal(parseDiscoverResult(withProto).ok, false, 'a __proto__ key does not supply fields')
  const withProto2 = JSON.parse('{"supportedVersions": [], "capabilities": {"__proto__": {"tools": {}}}, "_meta": {"__proto__": {"io.modelcontextprotocol/serverInfo": {"name": "a", "version": "1"}}}}')
  const r2 = ok(parseDiscoverResult(withProto2))
  t.equal(r2.serverInfo, null, 'serverInfo is not read through a __proto__ key')
  t.ok(Object.prototype.hasOwnProperty.call(r2.capabilities, '__proto__'), 'the __proto__ key stays an own key')

  // Inherited fields do not count
  t.equal(parseDiscoverResult(Object.create(base())).ok, false)

  // A polluted Object.prototype does not leak into the reading
  const proto = Object.prototype as Record<string, unknown>
  proto.cacheScope = 'public'
  proto.ttlMs = 99
  try {
    const polluted = ok(parseDiscoverResult({ supportedVersions: [], capabilities: {} }))
    t.equal(polluted.cacheScope, 'private')
    t.equal(polluted.ttlMs, 0)
  } finally {
    delete proto.cacheScope
    delete proto.ttlMs
  }

  // Null-prototype objects throughout
  const bare = Object.assign(Object.create(null), base(), {
    capabilities: Object.create(null),
    _meta: Object.assign(Object.create(null), { [SERVER_INFO_META]: Object.assign(Object.create(null), { name: 'n', version: 'v' }) })
  })
  const r3 = ok(parseDiscoverResult(bare))
  t.same(r3.serverInfo, { name: 'n', version: 'v' })
  t.equal(r3.cacheScope, 'public')

  // Frozen and sealed inputs are read, not written
  const frozen = Object.freeze(base())
  t.equal(ok(parseDiscoverResult(frozen)).raw, frozen)
})

t.test('property: arbitrary JSON never throws and ok results keep the invariants', async t => {
  let oks = 0
  fc.assert(fc.property(fc.jsonValue(), value => {
    const parsed = parseDiscoverResult(value)
    checkInvariants(value, parsed)
    if (parsed.ok) oks++
  }), { numRuns: 2000 })
  t.pass(`ran; ${oks} ok results`)
})

t.test('property: anything never throws', async t => {
  fc.assert(fc.property(fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    withUnicodeString: true
  }), value => {
    const parsed = parseDiscoverResult(value)
    if (typeof parsed.ok !== 'boolean') throw new Error('no ok flag')
  }), { numRuns: 2000 })
  t.pass('never threw')
})

// Values for each field: the well-formed ones and a spread of wrong ones.
const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, NaN, Infinity, -Infinity, -0, 2 ** 53, 1.5))
const versionsArb = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom('2026-07-28', '2025-11-25'), fc.string())),
  anyValue
)
const urlArb = fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom('data:image/png;base64,AAAA', 'a:b', 'http://a@b@c', 'http://[::1]/', 'x://a:b:c', 'mailto:me@example.com', 'http://a/#a#b', 'http://a/ b'))
const iconArb = fc.oneof(
  fc.record({ src: urlArb, mimeType: fc.oneof(fc.string(), anyValue), sizes: fc.oneof(fc.array(fc.string()), anyValue), theme: fc.oneof(fc.constantFrom('light', 'dark'), anyValue) }, { requiredKeys: [] }),
  anyValue
)
const serverInfoArb = fc.oneof(
  fc.record({
    name: fc.oneof({ arbitrary: fc.string(), weight: 4 }, anyValue),
    version: fc.oneof({ arbitrary: fc.string(), weight: 4 }, anyValue),
    title: fc.oneof(fc.string(), anyValue),
    description: fc.oneof(fc.string(), anyValue),
    websiteUrl: urlArb,
    icons: fc.oneof(fc.array(iconArb), anyValue)
  }, { requiredKeys: ['name', 'version'] }),
  anyValue
)
const discoverLike = fc.record({
  resultType: fc.oneof(fc.constant('complete'), anyValue),
  supportedVersions: versionsArb,
  capabilities: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), anyValue),
  instructions: fc.oneof(fc.string(), anyValue),
  ttlMs: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER), anyValue),
  cacheScope: fc.oneof(fc.constantFrom('public', 'private', 'Public', ' public'), anyValue),
  _meta: fc.oneof({ arbitrary: fc.record({ [SERVER_INFO_META]: serverInfoArb }, { requiredKeys: [] }), weight: 3 }, anyValue)
}, { requiredKeys: [] })

t.test('property: discover-like objects', async t => {
  let oks = 0
  let withInfo = 0
  fc.assert(fc.property(discoverLike, input => {
    const parsed = parseDiscoverResult(input)
    checkInvariants(input, parsed)
    // ok exactly when the three validity rules hold
    const rt = input.resultType
    const sv = input.supportedVersions
    const expectOk = (rt === undefined || rt === 'complete') &&
      Array.isArray(sv) && sv.every((v: unknown) => typeof v === 'string') &&
      isPlainObject(input.capabilities)
    if (parsed.ok !== expectOk) throw new Error(`ok=${String(parsed.ok)} for ${JSON.stringify(input)}`)
    if (parsed.ok) {
      oks++
      const m = input._meta as Record<string, any> | undefined
      const si = isPlainObject(m) ? m?.[SERVER_INFO_META] : undefined
      const expectInfo = isPlainObject(si) && typeof si.name === 'string' && typeof si.version === 'string'
      if ((parsed.result.serverInfo !== null) !== expectInfo) throw new Error('serverInfo presence')
      if (parsed.result.serverInfo !== null) {
        withInfo++
        if (parsed.result.serverInfo.name !== si.name || parsed.result.serverInfo.version !== si.version) throw new Error('serverInfo fields')
      }
    }
  }), { numRuns: 3000 })
  t.ok(oks > 100, `enough ok results (${oks})`)
  t.ok(withInfo > 20, `enough serverInfo results (${withInfo})`)
})

t.test('property: a kept websiteUrl or icon src is a valid uri (format checked)', async t => {
  let kept = 0
  fc.assert(fc.property(urlArb, url => {
    const r = ok(parseDiscoverResult({ ...base(), _meta: { [SERVER_INFO_META]: { name: 'n', version: 'v', websiteUrl: url, icons: [{ src: url }] } } }))
    if (!validImplementation(r.serverInfo)) throw new Error(`invalid for ${JSON.stringify(url)}`)
    if (r.serverInfo?.websiteUrl !== undefined) kept++
  }), { numRuns: 3000 })
  t.ok(kept > 300, `web urls are kept (${kept})`)
})
