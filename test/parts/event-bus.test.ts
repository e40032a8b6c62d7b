/**
 * The event bus contract, on the in-memory default: synchronous delivery to
 * every subscriber, unsubscribe, isolation of a throwing listener, close; and
 * the event shape check applied to events from a shared medium.
 */
import t from 'tap'
import { isMcpEvent, type McpEvent, MemoryEventBus } from '../../lib/parts/event-bus.js'

const TOOLS: McpEvent = { type: 'listChanged', list: 'tools' }

t.test('delivers synchronously to every subscriber, in order, until unsubscribed', async (t) => {
  const bus = new MemoryEventBus()
  const heard: string[] = []
  const offA = bus.subscribe((e) => heard.push(`a:${e.type}`))
  bus.subscribe((e) => heard.push(`b:${e.type}`))
  const published = bus.publish(TOOLS)
  t.same(heard, ['a:listChanged', 'b:listChanged'], 'heard before publish returns')
  await published
  offA()
  offA()
  await bus.publish({ type: 'resourceUpdated', uri: 'x://1' })
  t.same(heard, ['a:listChanged', 'b:listChanged', 'b:resourceUpdated'])
})

t.test('the same function subscribed twice hears twice and is removed once per unsubscribe', async (t) => {
  const bus = new MemoryEventBus()
  let count = 0
  const listener = (): void => { count++ }
  const off1 = bus.subscribe(listener)
  bus.subscribe(listener)
  await bus.publish(TOOLS)
  off1()
  await bus.publish(TOOLS)
  t.equal(count, 3)
})

t.test('a throwing listener does not keep the event from the others; publish rejects with its error', async (t) => {
  const bus = new MemoryEventBus()
  const heard: McpEvent[] = []
  bus.subscribe(() => { throw new Error('boom') })
  bus.subscribe((e) => heard.push(e))
  await t.rejects(bus.publish(TOOLS), /boom/)
  t.same(heard, [TOOLS])
})

t.test('an unsubscribe during delivery does not disturb that delivery', async (t) => {
  const bus = new MemoryEventBus()
  const heard: string[] = []
  let offB = (): void => {}
  bus.subscribe(() => { heard.push('a'); offB() })
  offB = bus.subscribe(() => heard.push('b'))
  await bus.publish(TOOLS)
  await bus.publish(TOOLS)
  t.same(heard, ['a', 'b', 'a'])
})

t.test('close drops every subscriber', async (t) => {
  const bus = new MemoryEventBus()
  let count = 0
  bus.subscribe(() => { count++ })
  await bus.close()
  await bus.publish(TOOLS)
  t.equal(count, 0)
  t.throws(() => bus.subscribe('nope' as never), TypeError)
})

t.test('isMcpEvent accepts the three event types and nothing else', async (t) => {
  t.ok(isMcpEvent(TOOLS))
  t.ok(isMcpEvent({ type: 'listChanged', list: 'prompts' }))
  t.ok(isMcpEvent({ type: 'resourceUpdated', uri: 'a://b' }))
  t.ok(isMcpEvent({ type: 'taskStatus', owner: 'o', task: { taskId: 't', status: 'working' } }))
  t.ok(isMcpEvent({ type: 'logLevel', caller: 'anonymous', level: 'debug' }))
  t.notOk(isMcpEvent({ type: 'logLevel', caller: 'anonymous', level: 'loud' }))
  t.notOk(isMcpEvent({ type: 'logLevel', level: 'debug' }), 'a level for nobody in particular')
  t.notOk(isMcpEvent({ type: 'logLevel', caller: 7, level: 'debug' }))
  for (const bad of [null, [], 'x', {}, { type: 'listChanged', list: 'other' }, { type: 'resourceUpdated', uri: 1 },
    { type: 'taskStatus', owner: 'o', task: { status: 'working' } }, { type: 'taskStatus', task: { taskId: 't', status: 'x' } },
    { type: 'taskStatus', owner: 'o', task: [] }, { type: '__proto__' }]) {
    t.notOk(isMcpEvent(bad), JSON.stringify(bad))
  }
})
