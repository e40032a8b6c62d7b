/**
 * The catalogue keeps its entries in segments whose list parts are rebuilt
 * one at a time after a change (lib/definitions/catalog.ts). Against a plain
 * model (an array of entries in order) under random adds, removals,
 * replacements, disables and enables spanning many segments: the whole list
 * (its items and its preset bytes), the enabled entries and every walk
 * through the pages agree with the model, and a walk with changes between
 * its pages neither skips nor repeats an item that stayed.
 */
import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { Catalog, type CatalogEntry } from '../../lib/definitions/catalog.js'
import { SEGMENT_SIZE } from '../../lib/definitions/catalog-segment.js'
import { jsonBytesOf, jsonOf } from '../../lib/response/frozen-json.js'

interface Model {
  name: string
  view: string
  version: number
  enabled: boolean
}

const VIEWS = ['resources', 'resourceTemplates']

function entryOf (m: Model): CatalogEntry {
  // A non-ASCII description: the bytes of an item are not its text's length.
  const listed = Object.freeze({ name: m.name, description: `v${m.version} é` })
  return { name: m.name, listed, json: JSON.stringify(listed), view: m.view, key: `k:${m.name}`, origin: 'test' }
}

type Op =
  | { op: 'add', view: number }
  | { op: 'remove' | 'replace' | 'disable' | 'enable', at: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), view: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ op: fc.constantFrom('remove' as const, 'replace' as const, 'disable' as const, 'enable' as const), at: fc.nat() })
)

class Harness {
  readonly catalog = new Catalog<CatalogEntry>('resource')
  readonly model: Model[] = []
  /** Names disabled at some point. */
  readonly disabled = new Set<string>()
  #next = 0

  add (view: number): void {
    const m = { name: `e${this.#next++}`, view: VIEWS[view] as string, version: 0, enabled: true }
    this.model.push(m)
    this.catalog.add(entryOf(m))
  }

  apply (op: Op): void {
    if (op.op === 'add') return this.add(op.view)
    if (this.model.length === 0) return
    const i = op.at % this.model.length
    const m = this.model[i] as Model
    if (op.op === 'remove') {
      this.model.splice(i, 1)
      assert.equal(this.catalog.remove(m.name)?.name, m.name)
    } else if (op.op === 'replace') {
      m.version++
      this.catalog.replace(entryOf(m))
    } else {
      const enabled = op.op === 'enable'
      if (!enabled) this.disabled.add(m.name)
      assert.equal(this.catalog.setEnabled(m.name, enabled), m.enabled !== enabled, 'a change only when it changes something')
      m.enabled = enabled
    }
  }

  expected (view: string): object[] {
    return this.model.filter((m) => m.enabled && m.view === view).map((m) => ({ name: m.name, description: `v${m.version} é` }))
  }

  walk (view: string, size: number): object[] {
    const out: object[] = []
    let cursor: string | undefined
    do {
      const page = this.catalog.page(view, cursor, size) as Record<string, any>
      assert.ok(page[view].length <= size, 'page too long')
      assert.deepEqual(JSON.parse(jsonOf(page)), page, 'a page\'s preset text is the page')
      out.push(...page[view])
      cursor = page.nextCursor
      assert.ok(out.length <= this.model.length, 'the walk ends')
    } while (cursor !== undefined)
    return out
  }
}

t.test('lists, enabled entries and pages agree with a plain model through random changes', async (t) => {
  fc.assert(fc.property(
    fc.integer({ min: 0, max: 3 * SEGMENT_SIZE }),
    fc.array(opArb, { maxLength: 120 }),
    fc.integer({ min: 1, max: 300 }),
    (initial, ops, size) => {
      const h = new Harness()
      for (let i = 0; i < initial; i++) h.add(i % 7 === 0 ? 1 : 0)
      // Lists read between changes too, so segments kept from before a change are exercised.
      for (const [i, op] of ops.entries()) {
        h.apply(op)
        if (i % 17 === 0) h.catalog.list(VIEWS[0] as string)
      }
      for (const view of VIEWS) {
        const expected = h.expected(view)
        const list = h.catalog.list(view) as Record<string, object[]>
        assert.deepEqual(list[view], expected)
        const bytes = Buffer.concat(jsonBytesOf(list) as Buffer[])
        assert.ok(bytes.equals(Buffer.from(JSON.stringify({ [view]: expected }))), 'the preset bytes are the list')
        assert.ok(Object.isFrozen(list[view]))
        assert.deepEqual(h.catalog.enabled(view).map((e) => e.listed), expected)
        assert.deepEqual(h.walk(view, size), expected)
      }
    }
  ), { numRuns: 40, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true })
  t.pass('40 random runs agreed')
})

t.test('changes between pages: nothing that stayed is skipped or repeated, additions come later', async (t) => {
  fc.assert(fc.property(
    fc.integer({ min: SEGMENT_SIZE, max: 3 * SEGMENT_SIZE }),
    fc.integer({ min: 1, max: 200 }),
    fc.array(fc.array(opArb, { maxLength: 30 }), { minLength: 1, maxLength: 12 }),
    (initial, size, rounds) => {
      const h = new Harness()
      for (let i = 0; i < initial; i++) h.add(0)
      const view = VIEWS[0] as string
      const seen: string[] = []
      let cursor: string | undefined
      let round = 0
      do {
        const page = h.catalog.page(view, cursor, size) as Record<string, any>
        seen.push(...page[view].map((item: { name: string }) => item.name))
        cursor = page.nextCursor
        // Changes after each of the first pages (not forever: additions would outrun a small page size).
        if (cursor !== undefined) for (const op of rounds[round++] ?? []) h.apply(op)
        assert.ok(seen.length <= h.model.length + initial, 'the walk ends')
      } while (cursor !== undefined)
      assert.equal(new Set(seen).size, seen.length, 'no item repeated')
      const order = new Map(h.model.map((m, i) => [m.name, i]))
      const served = seen.filter((name) => order.has(name))
      assert.deepEqual(served, [...served].sort((a, b) => (order.get(a) as number) - (order.get(b) as number)), 'served in catalogue order')
      // Every entry there at the end and never disabled during the walk (added ones included) was served.
      const stayed = h.model.filter((m) => m.enabled && m.view === view && !h.disabled.has(m.name)).map((m) => m.name)
      assert.deepEqual(stayed.filter((name) => !seen.includes(name)), [], 'nothing that stayed was skipped')
    }
  ), { numRuns: 40, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true })
  t.pass('40 random runs agreed')
})

t.test('a cursor of another view, or not made here, is refused with -32602', async (t) => {
  const h = new Harness()
  for (let i = 0; i < 10; i++) h.add(i % 2)
  const page = h.catalog.page('resources', undefined, 2) as { nextCursor: string }
  t.throws(() => h.catalog.page('resourceTemplates', page.nextCursor, 2), { code: -32602 })
  for (const bad of ['', 'x', 'cmVzb3VyY2VzOjA', Buffer.from('resources:01').toString('base64url'), `${page.nextCursor}=`, 42, null, {}]) {
    t.throws(() => h.catalog.page('resources', bad, 2), { code: -32602 }, `cursor ${JSON.stringify(bad)}`)
  }
})
