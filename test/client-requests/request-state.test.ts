/**
 * The requestState codec: what it signs opens again, with any of its keys;
 * anything altered, truncated, signed with another key or not a token at all
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
  t.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'base64url payload, a dot, a base64url SHA-256 MAC')
  t.strictSame(codec.open(token), PAYLOAD)
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
  t.equal(codec.open(token.slice(0, -1)), undefined, 'a truncated MAC fails')
  t.equal(codec.open(token.split('.')[0] as string), undefined, 'the payload alone fails')
})

t.test('a payload re-signed with another key fails; rotation keeps old tokens valid', async (t) => {
  const old = new RequestStateCodec([KEY_A])
  const other = new RequestStateCodec([KEY_B])
  const rotated = new RequestStateCodec([KEY_B, KEY_A])
  const token = old.seal(PAYLOAD)
  t.equal(other.open(token), undefined, 'another endpoint\'s key does not verify it')
  t.strictSame(rotated.open(token), PAYLOAD, 'a later key list that still holds the old key verifies it')
  t.equal(old.open(rotated.seal(PAYLOAD)), undefined, 'the first key of the list signs')
  // Swapping in another token's payload keeps the MAC of the first: must fail.
  const [, mac] = token.split('.')
  const [forged] = old.seal({ ...PAYLOAD, m: 'prompts/get' }).split('.')
  t.equal(old.open(`${forged}.${mac}`), undefined, 'a MAC moved onto another payload fails')
})

t.test('arbitrary strings open to undefined without throwing', async (t) => {
  const codec = new RequestStateCodec([KEY_A])
  fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => codec.open(s) === undefined))
  fc.assert(fc.property(fc.base64String(), fc.base64String(), (a, b) => codec.open(`${a}.${b}`) === undefined))
  t.pass('no string opened and none threw')
  t.throws(() => new RequestStateCodec([]), TypeError, 'a codec needs a key')
})

t.test('a non-object payload under a valid MAC is refused', async (t) => {
  // Only reachable with the key; the codec still insists on an object.
  const codec = new RequestStateCodec([KEY_A])
  const token = codec.seal(PAYLOAD)
  t.type(codec.open(token), 'object')
  t.equal(codec.open('.' + token.split('.')[1]), undefined, 'an empty payload fails')
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
