/**
 * A bus of the user's own may deliver a change's `changeSettled` before the
 * change itself (re-sent, reordered). The instance that hears it that way
 * used to find nothing to release and forget it; the change then came, was
 * held, and its `list_changed` waited out the whole fallback
 * (SETTLE_FALLBACK_MS, ~7 s) although it had settled everywhere. Now the
 * early settle is remembered and the change told at once
 * (lib/definitions/settled-notices.ts).
 *
 * Two endpoints on one in-memory medium; the receiver's bus hands over a
 * change only after its `changeSettled`. "At once" is shown by order: a
 * `resources/updated` marker sent after the change must reach the stream
 * second. The 2 s read guard is only a backstop, far below the fallback.
 *
 * And an endpoint alone (its own in-memory bus) publishes no
 * `changeSettled`: no instance holds anything there.
 */
import t from 'tap'
import { defineResources, defineTools, MemoryEventBus } from '../../lib/index.js'
import type { EventBus, McpEvent, McpEventListener } from '../../lib/parts/event-bus.js'
import { openListen, startApp } from '../streams/helpers.js'

const SECRET = 'settled-before-change-request-state-secret-0123'
const MARKER = 'notes://marker'
const server = () => ({
  ...defineTools({ echo: { handler: () => ({ content: [{ type: 'text' as const, text: 'e' }] }) } }),
  ...defineResources({ marker: { uri: MARKER, read: () => 'm' } })
})

/** One medium shared by in-process instances; each gets its own bus, which delivers to its own listeners first. */
function medium () {
  const buses: Array<{ hear: (event: McpEvent) => void }> = []
  return (reorder: boolean): EventBus => {
    const listeners = new Set<McpEventListener>()
    /** Changes heard and not handed over yet: a `changeSettled` goes first (`reorder`). */
    const waiting: McpEvent[] = []
    const hand = (event: McpEvent): void => { for (const listener of listeners) listener(event) }
    const member = {
      hear: (event: McpEvent) => {
        if (reorder && (event.type === 'definitionChanged' || event.type === 'namedChange')) {
          waiting.push(event)
          return
        }
        hand(event)
        if (event.type === 'changeSettled') for (const change of waiting.splice(0)) hand(change)
      }
    }
    buses.push(member)
    return {
      publish: async (event) => {
        hand(event)
        for (const other of buses) if (other !== member) other.hear(event)
      },
      subscribe: (listener) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
      close: async () => {}
    }
  }
}

t.test('a changeSettled heard before its change: the change is told at once, not after the fallback', async (t) => {
  const join = medium()
  const maker = await startApp({ server: server(), requestState: { secret: SECRET }, scale: { eventBus: join(false) }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => maker.app.close())
  const receiver = await startApp({ server: server(), requestState: { secret: SECRET }, scale: { eventBus: join(true) }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => receiver.app.close())
  const stream = await openListen(t, receiver.port, { toolsListChanged: true, resourceSubscriptions: [MARKER] })

  // The medium says not how many it reached: the maker settles as soon as it published, the receiver hears that first.
  await maker.app.mcp.tools.disable('echo')
  receiver.app.mcp.notifyResourceUpdated(MARKER)
  t.equal((await stream.nextMessage(2000)).method, 'notifications/tools/list_changed', 'the change first, long before the fallback')
  t.equal((await stream.nextMessage(2000)).method, 'notifications/resources/updated', 'then the marker sent after it')
})

t.test('an endpoint alone publishes no changeSettled', async (t) => {
  const published: string[] = []
  const publish = MemoryEventBus.prototype.publish
  // The endpoint makes its own bus when given none: watched through the class it makes it from.
  MemoryEventBus.prototype.publish = function (this: MemoryEventBus, event: McpEvent) {
    published.push(event.type)
    return publish.call(this, event)
  }
  t.teardown(() => { MemoryEventBus.prototype.publish = publish })
  const { app } = await startApp({ server: server() })
  t.teardown(() => app.close())
  await app.mcp.tools.disable('echo')
  await app.mcp.tools.enable('echo')
  t.strictSame(published, ['definitionChanged', 'definitionChanged'], 'the changes go on the bus; no word that they settled')
})
