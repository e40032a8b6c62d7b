/**
 * List changes for a legacy stdio connection. Over HTTP a legacy client
 * hears about them on a standalone stream; over stdio the one channel can
 * carry them, so after `initialize` the connection opens the endpoint's own
 * `subscriptions/listen` (the same registry, event bus and limits as any
 * listener, under the same caller) and forwards each
 * `notifications/{tools,prompts,resources}/list_changed` as the legacy era
 * writes it. `initialize` then advertises `listChanged: true` on each list
 * the server has, which is true on this connection. It needs a deployment
 * that answers modern requests (`era` not `'legacy'`); otherwise nothing
 * changes and `listChanged` stays as the endpoint says.
 */
import type { FastifyBaseLogger } from 'fastify'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js'
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from '../protocol/meta.js'
import { LATEST_MODERN_VERSION } from '../protocol/versions.js'
import { EndpointCall, type EndpointTarget } from './endpoint-call.js'
import { modernHeaders } from './message-headers.js'
import type { MessageWriter } from './message-writer.js'

const LISTS = ['tools', 'prompts', 'resources'] as const
const FORWARDED: ReadonlySet<string> = new Set(LISTS.map((list) => `notifications/${list}/list_changed`))

const LISTEN = Object.freeze({
  jsonrpc: '2.0',
  id: 'fastify-mcp-capabilities/stdio:list-changes',
  method: 'subscriptions/listen',
  params: {
    notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
    _meta: { [META_PROTOCOL_VERSION]: LATEST_MODERN_VERSION, [META_CLIENT_CAPABILITIES]: {} }
  }
})

export class LegacyChanges {
  readonly #target: EndpointTarget
  readonly #headers: Readonly<Record<string, string>>
  readonly #writer: MessageWriter
  readonly #log: FastifyBaseLogger
  #enabled = false
  #call: EndpointCall | undefined

  constructor (target: EndpointTarget, headers: Readonly<Record<string, string>>, writer: MessageWriter, log: FastifyBaseLogger) {
    this.#target = target
    this.#headers = headers
    this.#writer = writer
    this.#log = log
  }

  /** Turns the feed on for this connection (a legacy `initialize` was answered on a deployment that serves listen). */
  enable (on: boolean): void {
    this.#enabled = on
  }

  /** The `initialize` response, with `listChanged: true` on each list it advertises when the feed is on. */
  announce (response: JsonObject): string {
    if (!this.#enabled || !isJsonObject(response.result) || !isJsonObject(response.result.capabilities)) return JSON.stringify(response)
    const capabilities = { ...response.result.capabilities }
    for (const list of LISTS) {
      const capability = capabilities[list]
      if (isJsonObject(capability)) capabilities[list] = { ...capability, listChanged: true }
    }
    return JSON.stringify({ ...response, result: { ...response.result, capabilities } })
  }

  /** Opens the feed once; resolves when it ends (the app closed, or `stop`). */
  start (): Promise<void> | undefined {
    if (!this.#enabled || this.#call !== undefined) return undefined
    const call = this.#call = new EndpointCall()
    return this.#forward(call).catch((err: unknown) => {
      this.#log.warn({ err }, 'MCP stdio: the list-change feed of a legacy connection ended')
    })
  }

  stop (): void {
    this.#call?.cancel()
  }

  async #forward (call: EndpointCall): Promise<void> {
    const headers = { ...this.#headers, ...modernHeaders(LISTEN, LATEST_MODERN_VERSION) }
    for await (const json of call.send(this.#target, headers, JSON.stringify(LISTEN))) {
      const message = JSON.parse(json) as unknown
      if (!isJsonObject(message) || typeof message.method !== 'string' || !FORWARDED.has(message.method)) continue
      await this.#writer.send(JSON.stringify({ jsonrpc: '2.0', method: message.method }))
    }
  }
}
