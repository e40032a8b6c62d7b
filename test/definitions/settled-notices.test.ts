/**
 * SettledNotices (lib/definitions/settled-notices.ts): what a shared change
 * tells listen streams is held until it settled (here: its sharing
 * settled; elsewhere: `settled(id)` heard), each list and URI told once;
 * a heard change whose settle never comes is told after the bound; an
 * endpoint alone tells at once. A settle heard before its change is
 * remembered (bounded by count and age) and the change told at once.
 */
import t from 'tap'
import { MAX_HELD_CHANGES, MAX_SETTLED_EARLY, SettledNotices } from '../../lib/definitions/settled-notices.js'

// The fallback timer is unref'd (a server keeps the process alive); here a ref'd interval does.
const alive = setInterval(() => {}, 1000)
t.teardown(() => clearInterval(alive))

/** Streams that record what they were told, in order. */
function streams () {
  const told: string[] = []
  let heard: () => void = () => {}
  return {
    told,
    /** Resolves at the next thing told. */
    next: () => new Promise<void>((resolve) => { heard = resolve }),
    tell: {
      listChanged: (list: string) => { told.push(`list ${list}`); heard() },
      resourceUpdated: (uri: string) => { told.push(`updated ${uri}`); heard() }
    }
  }
}

t.test('alone (holds: false): told at once, in and out of a change', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: false })
  t.equal(notices.holds, false, 'and says so (no changeSettled is then published: lib/definitions/shared-catalog.ts)')
  const release = notices.holdWhile(() => notices.listChanged('tools'))
  t.strictSame(told, ['list tools'], 'a change made here')
  release()
  notices.holdUntilSettled('a', () => notices.resourceUpdated('notes://1'))
  t.strictSame(told, ['list tools', 'updated notes://1'], 'a change heard')
})

t.test('a change made here: held until its sharing settled, each list and URI once', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  const release = notices.holdWhile(() => {
    notices.listChanged('resources')
    notices.resourceUpdated('skill://a/SKILL.md')
    notices.listChanged('resources')
    notices.resourceUpdated('skill://a/SKILL.md')
    notices.listChanged('tools')
  })
  notices.listChanged('prompts')
  t.strictSame(told, ['list prompts'], 'held; what is told outside a change is not')
  release()
  t.strictSame(told, ['list prompts', 'list resources', 'list tools', 'updated skill://a/SKILL.md'], 'lists, then URIs, once each')
  release()
  t.equal(told.length, 4, 'released twice, told once')
})

t.test('code that throws has what it told before throwing told at once', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  t.throws(() => notices.holdWhile(() => {
    notices.listChanged('tools')
    throw new Error('half done')
  }), { message: 'half done' })
  t.strictSame(told, ['list tools'])
})

t.test('a change heard: held until settled(id); the same id heard again adds to its hold', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  t.equal(notices.holdUntilSettled('a', () => { notices.listChanged('tools'); return 'applied' }), 'applied', 'apply\'s result comes back')
  notices.holdUntilSettled('a', () => { notices.listChanged('tools'); notices.listChanged('prompts') })
  notices.holdUntilSettled('b', () => notices.listChanged('resources'))
  notices.settled('unknown')
  t.strictSame(told, [])
  notices.settled('a')
  t.strictSame(told, ['list tools', 'list prompts'])
  notices.settled('a')
  t.strictSame(told, ['list tools', 'list prompts'], 'settled twice: told once')
  notices.settled('b')
  t.strictSame(told, ['list tools', 'list prompts', 'list resources'])
})

t.test('a shared change made inside a named change\'s code holds on its own', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  let inner: () => void = () => {}
  notices.holdUntilSettled('outer', () => {
    notices.listChanged('tools')
    inner = notices.holdWhile(() => notices.listChanged('prompts'))
    notices.resourceUpdated('notes://1')
  })
  inner()
  t.strictSame(told, ['list prompts'])
  notices.settled('outer')
  t.strictSame(told, ['list prompts', 'list tools', 'updated notes://1'])
})

t.test('a settle never heard: told after the bound', async (t) => {
  const { told, tell, next } = streams()
  const notices = new SettledNotices(tell, { holds: true, fallbackMs: 20 })
  t.teardown(() => notices.close())
  const heard = next()
  notices.holdUntilSettled('lost', () => notices.listChanged('tools'))
  t.strictSame(told, [], 'held')
  await heard
  t.strictSame(told, ['list tools'])
  notices.settled('lost')
  t.strictSame(told, ['list tools'], 'a settle heard later tells nothing more')
})

t.test('past MAX_HELD_CHANGES held at once, a change is told at once', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  for (let i = 0; i < MAX_HELD_CHANGES; i++) notices.holdUntilSettled(`c${i}`, () => notices.listChanged('tools'))
  t.strictSame(told, [])
  notices.holdUntilSettled('one-more', () => notices.listChanged('prompts'))
  t.strictSame(told, ['list prompts'])
  // A change that told nothing holds nothing (and counts for nothing).
  notices.settled('c0')
  notices.holdUntilSettled('quiet', () => {})
  notices.holdUntilSettled('next', () => notices.listChanged('resources'))
  t.strictSame(told, ['list prompts', 'list tools'], 'room again: held')
})

t.test('close drops what is held: nothing is told after it', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  const release = notices.holdWhile(() => notices.listChanged('tools'))
  notices.holdUntilSettled('a', () => notices.listChanged('prompts'))
  notices.close()
  release()
  notices.settled('a')
  t.strictSame(told, [])
})

t.test('settled before the change was heard: the change is told at once, not after the bound', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  notices.settled('early')
  t.strictSame(told, [], 'nothing held: nothing to tell yet')
  notices.holdUntilSettled('early', () => notices.listChanged('tools'))
  t.strictSame(told, ['list tools'], 'told as it is applied')
  notices.holdUntilSettled('early', () => notices.resourceUpdated('notes://1'))
  t.strictSame(told, ['list tools', 'updated notes://1'], 'heard again while remembered: told at once too')
  notices.holdUntilSettled('other', () => notices.listChanged('prompts'))
  t.strictSame(told, ['list tools', 'updated notes://1'], 'another change is still held')
})

t.test('ids settled early are remembered for the fallback\'s duration only', async (t) => {
  const { told, tell } = streams()
  let now = 1000
  const notices = new SettledNotices(tell, { holds: true, fallbackMs: 500, now: () => now })
  t.teardown(() => notices.close())
  notices.settled('old')
  now += 499
  notices.settled('young')
  notices.holdUntilSettled('old', () => notices.listChanged('tools'))
  t.strictSame(told, ['list tools'], 'within the duration: remembered')
  now += 1
  notices.holdUntilSettled('old', () => notices.listChanged('prompts'))
  t.strictSame(told, ['list tools'], 'once the duration passed: forgotten, held again')
  notices.holdUntilSettled('young', () => notices.listChanged('resources'))
  t.strictSame(told, ['list tools', 'list resources'], 'a younger id is still remembered')
})

t.test('at most MAX_SETTLED_EARLY ids are remembered, the oldest forgotten first', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true, now: () => 0 })
  t.teardown(() => notices.close())
  for (let i = 0; i <= MAX_SETTLED_EARLY; i++) notices.settled(`s${i}`)
  notices.holdUntilSettled('s0', () => notices.listChanged('tools'))
  t.strictSame(told, [], 'the oldest was forgotten: held')
  notices.holdUntilSettled('s1', () => notices.listChanged('prompts'))
  notices.holdUntilSettled(`s${MAX_SETTLED_EARLY}`, () => notices.listChanged('resources'))
  t.strictSame(told, ['list prompts', 'list resources'], 'the next oldest and the newest are remembered')
})

t.test('an id no well-formed event carries is never remembered nor held on', async (t) => {
  const { told, tell } = streams()
  const notices = new SettledNotices(tell, { holds: true })
  t.teardown(() => notices.close())
  const long = 'x'.repeat(65)
  // A custom bus hands over what it was given; the endpoint's dispatch passes it on as heard.
  notices.settled(long)
  notices.settled(7 as unknown as string)
  notices.settled('')
  for (let i = 0; i < MAX_SETTLED_EARLY; i++) notices.settled(`s${i}`)
  notices.holdUntilSettled('s0', () => notices.listChanged('tools'))
  t.strictSame(told, ['list tools'], 'the odd ids took no room: the oldest well-formed one is still remembered')
  notices.holdUntilSettled(long, () => notices.listChanged('prompts'))
  t.strictSame(told, ['list tools', 'list prompts'], 'a change under such an id could never be settled: told at once')
  notices.holdUntilSettled('y'.repeat(64), () => notices.listChanged('resources'))
  t.strictSame(told, ['list tools', 'list prompts'], 'the longest well-formed id is held')
})
