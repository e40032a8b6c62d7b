/**
 * The requestState codec: what it seals opens again, with any of its keys and
 * only for the caller it was sealed for; its content is not readable;
 * anything altered, truncated, sealed with another key or not a token at all
 * opens to undefined and never throws. Digests ignore key order.
 */
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import t from 'tap'
import { canonicalJson, digest, RequestStateCodec } from '../../lib/input/request-state.js'

const KEY_A = randomBytes(32)
const KEY_B = randomBytes(32)
const PAYLOAD = { v: 1, m: 'tools/call', a: { step1: { q: 'x', r: { action: 'accept', content: { name: 'Ada' } } } }, x: 1 }

t.test('a sealed payload opens to an equal payload', async (t) => {
  const codec = new RequestStateCodec([KEY_A])
  const token = codec.seal(PAYLOAD)
  t.match(token, /^[A-Za-z0-9_-]+$/, 'one base64url string')
  t.strictSame(codec.open(token), PAYLOAD)
  t.notMatch(Buffer.from(token, 'base64url').toString('latin1'), /Ada|accept|tools\/call/, 'nothing of the payload is readable')
  t.not(codec.seal(PAYLOAD), token, 'a fresh IV per seal: equal payloads give different tokens')
})

t.test('a state opens only for the caller it was sealed for', async (t) => {
  const codec = new RequestStateCodec([KEY_A])
  const token = codec.seal(PAYLOAD, 'sha256:alice')
  t.strictSame(codec.open(token, 'sha256:alice'), PAYLOAD)
  t.equal(codec.open(token, 'sha256:mallory'), undefined, 'another caller')
  t.equal(codec.open(token, 'anonymous'), undefined, 'no credential')
  t.equal(codec.open(token), undefined, 'no binding at all')
})

t.test('any single altered character fails verification', async (t) => {
  const codec = new RequestStateCodec([KEY_A])
  const token = codec.seal(PAYLOAD)
  let opened = 0
  for (let i = 0; i < token.length; i++) {
    for (const c of ['A', 'z', '0', '-', '_', '.']) {
      if (token[i] === c) continue
      if (codec.open(token.slice(0, i) + c + token.slice(i + 1)) !== undefined) opened++
    }
  }
  t.equal(opened, 0, 'no variant opens')
  t.equal(codec.open(token + '-TAMPERED'), undefined, 'a suffix (what the conformance suite appends) fails')
  t.equal(codec.open(token.slice(0, -1)), undefined, 'a truncated tag fails')
  t.equal(codec.open(token.slice(0, 40)), undefined, 'a prefix fails')
})

t.test('a payload re-signed with another key fails; rotation keeps old tokens valid', async (t) => {
  const old = new RequestStateCodec([KEY_A])
  const other = new RequestStateCodec([KEY_B])
  const rotated = new RequestStateCodec([KEY_B, KEY_A])
  const token = old.seal(PAYLOAD)
  t.equal(other.open(token), undefined, 'another endpoint\'s key does not verify it')
  t.strictSame(rotated.open(token), PAYLOAD, 'a later key list that still holds the old key verifies it')
  t.equal(old.open(rotated.seal(PAYLOAD)), undefined, 'the first key of the list seals')
  // Another token's tag moved onto this one's ciphertext: must fail.
  const other2 = old.seal({ ...PAYLOAD, m: 'prompts/get' })
  const spliced = Buffer.concat([Buffer.from(token, 'base64url').subarray(0, -16), Buffer.from(other2, 'base64url').subarray(-16)]).toString('base64url')
  t.equal(old.open(spliced), undefined, 'a tag moved onto another ciphertext fails')
})

t.test('arbitrary strings open to undefined without throwing', async (t) => {
  const codec = new RequestStateCodec([KEY_A])
  fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => codec.open(s) === undefined))
  fc.assert(fc.property(fc.base64String(), fc.base64String(), (a, b) => codec.open(`${a}.${b}`) === undefined))
  t.pass('no string opened and none threw')
  t.throws(() => new RequestStateCodec([]), TypeError, 'a codec needs a key')
})

t.test('a non-object payload under a valid tag is refused', async (t) => {
  // Only reachable with the key; the codec still insists on an object.
  const codec = new RequestStateCodec([KEY_A])
  t.type(codec.open(codec.seal(PAYLOAD)), 'object')
  t.equal(codec.open(codec.seal([1, 2] as never)), undefined, 'an array fails')
  t.equal(codec.open(''), undefined, 'an empty token fails')
})

t.test('canonical JSON and digests ignore key order', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}')
  t.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}', 'undefined members are left out, as JSON.stringify does')
  fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
    const reversed = Object.fromEntries(Object.entries(obj).reverse())
    return digest(obj) === digest(reversed) && JSON.parse(canonicalJson(obj)) !== undefined
  }))
  t.not(digest({ a: 1 }), digest({ a: 2 }), 'different values, different digests')
  t.match(digest({}), /^[A-Za-z0-9_-]{22}$/, '128 bits, base64url')
})

t.test('the keys are those of the secrets as given, even if the caller then reuses its buffers', async (t) => {
  const given = Buffer.from(KEY_A)
  const codec = new RequestStateCodec([given])
  given.fill(0)
  t.strictSame(new RequestStateCodec([KEY_A]).open(codec.seal(PAYLOAD)), PAYLOAD, 'sealed under KEY_A')
})
