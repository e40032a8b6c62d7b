/**
 * The child-process side of a benchmarked server: listen on a free loopback
 * port, tell the runner which one over IPC, and close cleanly when told to
 * (a clean exit is what lets `--cpu-prof` write its profile).
 */
import type { FastifyInstance } from 'fastify'

export interface ListeningMessage { type: 'listening', port: number, pid: number }

export async function serve (app: FastifyInstance): Promise<void> {
  let closing = false
  const stop = async (): Promise<void> => {
    if (closing) return
    closing = true
    await app.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => { void stop() })
  process.on('SIGINT', () => { void stop() })
  process.on('disconnect', () => { void stop() })
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') void stop()
  })

  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const listening: ListeningMessage = { type: 'listening', port, pid: process.pid }
  if (process.send) process.send(listening)
  else console.log(JSON.stringify(listening))
}

/** Waits for the first IPC message of `type` (the runner's input to a server). */
export function receive<T> (type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error('this server needs the runner (IPC channel) to start it'))
      return
    }
    const onMessage = (message: { type?: string }): void => {
      if (message?.type !== type) return
      process.off('message', onMessage)
      resolve(message as T)
    }
    process.on('message', onMessage)
  })
}
