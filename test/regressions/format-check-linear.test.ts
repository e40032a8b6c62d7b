// Guards issue 22 item 1 (one request stalled the event loop): the built-in
// `email` format was a regular expression that backtracked cubically, so
// `a@` + 100,000 dots + `@` blocked the process for ~40 s. Every built-in
// format now runs in time linear in the value (the `regex` format, whose
// compilation costs microseconds per character, is bounded in length).
// The bound below is generous (a linear check takes milliseconds on these
// inputs on a loaded machine; the old email check took tens of seconds).
import { FormatRegistry, Type } from '@sinclair/typebox'
import fc from 'fast-check'
import t from 'tap'
import { defineTools } from '../../lib/definitions/tools.js'
import { MAX_REGEX_FORMAT_LENGTH, registerCommonFormats } from '../../lib/definitions/formats.js'
import { serve } from '../definitions/helpers.js'

registerCommonFormats()
const N = 200_000
const STALL_MS = 2000

/** Adversarial values per format: long runs of the characters each check loops on. */
const HOSTILE: Record<string, string[]> = {
  email: ['a@' + '.'.repeat(N) + '@', 'a@' + 'a.'.repeat(N / 2) + ' ', 'a'.repeat(N) + '@', 'a@a' + '.'.repeat(N)],
  date: ['1'.repeat(N)],
  time: ['1'.repeat(N), '12:00:00.' + '1'.repeat(N) + 'x'],
  'date-time': ['2020-01-01T' + '1'.repeat(N), 't'.repeat(N)],
  uri: ['a' + '+'.repeat(N), 'a:' + '%'.repeat(N)],
  'uri-reference': ['/'.repeat(N), '%'.repeat(N)],
  uuid: ['0'.repeat(N)],
  ipv4: ['1.'.repeat(N / 2)],
  ipv6: [':'.repeat(N), '1:'.repeat(N / 2)],
  hostname: ['a'.repeat(N), 'a.'.repeat(N / 2), 'a-'.repeat(N / 2) + '!'],
  regex: ['\\p{Script=Greek}'.repeat(N / 16), '('.repeat(N), '(?:'.repeat(N / 3)]
}

t.test('every built-in format checks a 200 KB hostile value without stalling', async (t) => {
  for (const [name, values] of Object.entries(HOSTILE)) {
    const check = FormatRegistry.Get(name)
    t.ok(check, `${name} is registered`)
    for (const value of values) {
      const started = performance.now()
      check?.(value)
      const ms = performance.now() - started
      t.ok(ms < STALL_MS, `${name} on ${JSON.stringify(value.slice(0, 12))}…: ${ms.toFixed(1)} ms`)
    }
  }
})

t.test('email accepts what it accepted before, on ordinary values', async (t) => {
  const email = FormatRegistry.Get('email') as (value: string) => boolean
  const before = /^[^\s@]+@[^\s@]+\.[^\s@]+$/ // safe on short values
  const text = fc.array(fc.constantFrom('a', 'b', '.', '@', ' ', '\t', '-', 'é'), { maxLength: 12 }).map((parts) => parts.join(''))
  fc.assert(fc.property(text, (value) => email(value) === before.test(value)), { numRuns: 20_000 })
  t.ok(email('ada@example.org'))
  t.notOk(email('ada@example'))
  t.notOk(email('a@b@example.org'))
})

t.test(`the regex format refuses patterns over ${MAX_REGEX_FORMAT_LENGTH} characters`, async (t) => {
  const regex = FormatRegistry.Get('regex') as (value: string) => boolean
  t.ok(regex('a'.repeat(MAX_REGEX_FORMAT_LENGTH)))
  t.notOk(regex('a'.repeat(MAX_REGEX_FORMAT_LENGTH + 1)))
  t.notOk(regex('('))
})

t.test('a tool with an email argument refuses a hostile value as a tool error, quickly', async (t) => {
  const tools = defineTools({
    mail: { input: Type.Object({ to: Type.String({ format: 'email' }) }), handler: ({ to }) => ({ content: [{ type: 'text' as const, text: `sent to ${to}` }] }) }
  })
  const { app } = await serve(t, tools)
  const started = performance.now()
  const reply = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'mail', arguments: { to: 'a@' + '.'.repeat(N) + '@' } } }
  })
  const ms = performance.now() - started
  const body = JSON.parse(reply.body)
  t.equal(body.id, 7)
  t.equal(body.result?.isError, true, 'refused as a tool error the model can correct')
  // a body over DETAILED_BODY_BYTES: the first problem, found by Ajv in first-error mode with the same format check
  t.match(body.result?.content?.[0]?.text, /to: must match format "email"; further problems not looked for/)
  t.ok(ms < STALL_MS, `answered in ${ms.toFixed(0)} ms`)
})
