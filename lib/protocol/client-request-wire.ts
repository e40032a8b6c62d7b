/**
 * The requests a server sends to its client (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) as the wire has them: their params
 * and results, the `input_required` result that carries them in 2026-07-28,
 * which client capability each needs, and the shape check of an answer.
 */
import { isJsonObject, type JsonObject } from './jsonrpc.js'

export type ClientRequestMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'

/** Default keys of input requests are `<prefix>-<n>` (e.g. `elicitation-1`), in `requestState` rounds and in tasks alike. */
export const INPUT_KEY_PREFIX: Readonly<Record<ClientRequestMethod, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots'
})

export interface ClientRequestOptions {
  /**
   * Modern era: the key of this request in `inputRequests` and of its answer
   * in `inputResponses`. Default: by call order per kind (`elicitation-1`,
   * `sampling-1`, `roots-1`, ...), which is stable as long as the handler asks
   * the same questions in the same order on every attempt. Ignored in the
   * legacy era.
   */
  key?: string
}

/** `elicitation/create` params: a form (default) or, with `mode: 'url'`, a URL to open. */
export type ElicitParams =
  | { mode?: 'form', message: string, requestedSchema: JsonObject, [key: string]: unknown }
  | { mode: 'url', message: string, url: string, elicitationId?: string, [key: string]: unknown }

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, string | number | boolean | string[]>
  [key: string]: unknown
}

export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: JsonObject | JsonObject[]
  [key: string]: unknown
}

export interface CreateMessageParams {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  [key: string]: unknown
}

export interface CreateMessageResult {
  role: 'user' | 'assistant'
  content: JsonObject | JsonObject[]
  model: string
  stopReason?: string
  [key: string]: unknown
}

export interface Root {
  uri: string
  name?: string
  [key: string]: unknown
}

export interface ListRootsResult {
  roots: Root[]
  [key: string]: unknown
}

/** One entry of `inputRequests`. */
export interface InputRequest {
  method: ClientRequestMethod
  params?: JsonObject
}

/** A hand-built `input_required` result (2026-07-28). */
export interface InputRequiredResult {
  resultType: 'input_required'
  inputRequests?: Record<string, InputRequest>
  requestState?: string
  [key: string]: unknown
}

/** The `requiredCapabilities` a request needs and the client lacks, or undefined. */
export function missingCapability (method: string, params: JsonObject, capabilities: JsonObject): JsonObject | undefined {
  switch (method) {
    case 'elicitation/create': {
      const declared = capabilities.elicitation
      const url = params.mode === 'url'
      if (!isJsonObject(declared)) return { elicitation: url ? { url: {} } : {} }
      if (url) return isJsonObject(declared.url) ? undefined : { elicitation: { url: {} } }
      // `elicitation: {}` (no modes named) means form support.
      return isJsonObject(declared.form) || declared.url === undefined ? undefined : { elicitation: { form: {} } }
    }
    case 'sampling/createMessage': {
      const declared = capabilities.sampling
      if (!isJsonObject(declared)) return { sampling: {} }
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !isJsonObject(declared.tools)) return { sampling: { tools: {} } }
      const context = params.includeContext
      if ((context === 'thisServer' || context === 'allServers') && !isJsonObject(declared.context)) return { sampling: { context: {} } }
      return undefined
    }
    case 'roots/list':
      return isJsonObject(capabilities.roots) ? undefined : { roots: {} }
  }
  return {}
}

const ELICIT_ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel'])
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant'])

/** What is wrong with a client's answer to `method`, or undefined when it has the result's shape. */
export function answerProblem (method: string, answer: JsonObject): string | undefined {
  switch (method) {
    case 'elicitation/create':
      if (!ELICIT_ACTIONS.has(answer.action)) return 'is not an ElicitResult (action must be accept, decline or cancel)'
      if (answer.content !== undefined && !isJsonObject(answer.content)) return 'is not an ElicitResult (content must be an object)'
      return undefined
    case 'sampling/createMessage':
      if (!ROLES.has(answer.role) || typeof answer.model !== 'string' || !(isJsonObject(answer.content) || Array.isArray(answer.content))) {
        return 'is not a CreateMessageResult (role, content and model are required)'
      }
      return undefined
    case 'roots/list':
      if (!Array.isArray(answer.roots) || !answer.roots.every((r) => isJsonObject(r) && typeof r.uri === 'string')) {
        return 'is not a ListRootsResult (roots must be an array of { uri })'
      }
      return undefined
  }
  return 'answers an unknown request'
}
