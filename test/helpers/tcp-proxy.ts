/**
 * A TCP proxy on 127.0.0.1 in front of a local server (a redis-server): the
 * test can cut it (every open connection dropped, new ones closed at once)
 * and restore it, which takes one instance away from Redis while Redis, its
 * data and every other client carry on.
 */
import net from 'node:net'

export interface TcpProxy {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** Drops every connection through the proxy and refuses new ones until `restore()`. */
  cut (): void
  restore (): void
  close (): Promise<void>
}

export async function startTcpProxy (targetPort: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>()
  let cut = false
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy()
      return
    }
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort })
    open.add(client)
    open.add(upstream)
    const drop = (): void => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on('error', drop)
    upstream.on('error', drop)
    client.on('close', drop)
    upstream.on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    port: address.port,
    url: `redis://127.0.0.1:${address.port}`,
    cut () {
      cut = true
      for (const socket of open) socket.destroy()
      open.clear()
    },
    restore () {
      cut = false
    },
    async close () {
      cut = true
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
