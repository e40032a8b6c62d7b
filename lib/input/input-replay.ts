/**
 * Multi round-trip requests (2026-07-28), by replay: the handler runs again
 * on every retry, and each `ctx.elicit()` / `createMessage()` / `listRoots()`
 * finds its answer under its key, either in the retry's `inputResponses` or,
 * for answers given in earlier rounds, in the sealed `requestState`. The
 * first call without an answer ends the attempt; the endpoint answers
 * `input_required` with every request the attempt gathered (calls started
 * together, e.g. under `Promise.all`, are asked together).
 *
 * `requestState` is encrypted and bound to the caller (`callerOf`), to the
 * request (method and a digest of its params other than `_meta`,
 * `inputResponses` and `requestState`), expires, and records the digest of
 * each question asked, so under a state an answer is only used for the exact
 * question it answers. A first request (no state) may carry answers up front,
 * as a server keeping no state must allow; they are shape-checked like any other.
 * Nothing is stored on the server: any instance that shares the secret can
 * serve the retry.
 */
import { quote } from '../protocol/describe.js'
import { type ClientRequestMethod, type ClientRequestOptions, answerProblem, INPUT_KEY_PREFIX } from '../protocol/client-request-wire.js'
import { type ClientRequests, InputRequiredSignal, rejected, requireCapabilityFor } from './client-requests.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { digest, type RequestStateCodec } from './request-state.js'
import type { JsonObject } from '../protocol/jsonrpc.js'

const STATE_VERSION = 1
const CLIENT_METHODS: ReadonlySet<unknown> = new Set(Object.keys(INPUT_KEY_PREFIX))

interface Answer { q: string, r: JsonObject }

/** The answers of a request that carries none (most), shared: only read. */
const NO_RESPONSES: JsonObject = Object.freeze({})

/** The signed payload. Short names: it travels with every retry. */
interface StatePayload {
  v: number
  /** JSON-RPC method of the request. */
  m: string
  /** Digest of its params. */
  d: string
  /** Expiry, ms since the epoch. */
  x: number
  /** Answers used so far, by key, with the digest of the question each answers. */
  a: Record<string, Answer>
  /** Digest of each question the last result asked, by key. */
  q: Record<string, string>
  /** The handler's own `requestState` (hand-built results). */
  h?: string
}

export interface ReplayContext {
  method: string
  params: JsonObject
  clientCapabilities: JsonObject
  codec: RequestStateCodec
  ttlMs: number
  /** The caller the state is bound to (computed only when a state is opened or sealed). */
  caller: () => string
}

export type OpenedRound = { ok: true, replay: InputReplay } | { ok: false, message: string }

function requestDigest (method: string, params: JsonObject): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params
  return digest({ method, params: rest })
}

function questionDigest (method: string, params: unknown): string {
  return digest({ method, params: params ?? {} })
}

function isStringRecord (value: unknown): value is Record<string, string> {
  return isJsonObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

function isPayload (value: JsonObject): value is JsonObject & StatePayload {
  return value.v === STATE_VERSION && typeof value.m === 'string' && typeof value.d === 'string' &&
    typeof value.x === 'number' && isStringRecord(value.q) && (value.h === undefined || typeof value.h === 'string') &&
    isJsonObject(value.a) && Object.values(value.a).every((a) => isJsonObject(a) && typeof a.q === 'string' && isJsonObject(a.r))
}

/**
 * Checks `inputResponses` and `requestState` of a request that may carry
 * them, before the handler runs. Any failure is an invalid-params error.
 */
export function openInputRound (context: ReplayContext): OpenedRound {
  const { method, params, codec } = context
  const responses = params.inputResponses
  if (responses !== undefined) {
    if (!isJsonObject(responses)) return { ok: false, message: 'Invalid params: "inputResponses" must be an object' }
    for (const [key, value] of Object.entries(responses)) {
      if (!isJsonObject(value)) return { ok: false, message: `Invalid params: inputResponses[${quote(key)}] must be a result object` }
    }
  }
  const token = params.requestState
  let prior: StatePayload | undefined
  if (token !== undefined) {
    if (typeof token !== 'string') return { ok: false, message: 'Invalid params: "requestState" must be a string' }
    const payload = codec.open(token, context.caller())
    if (payload === undefined || !isPayload(payload)) return { ok: false, message: 'Invalid params: requestState failed verification' }
    let expected: string
    try {
      expected = requestDigest(method, params)
    } catch {
      // Params nested deeper than the stack allows: not a request this endpoint can have signed.
      return { ok: false, message: 'Invalid params: params are nested too deeply' }
    }
    if (payload.m !== method || payload.d !== expected) {
      return { ok: false, message: 'Invalid params: requestState was issued for a different request' }
    }
    if (payload.x <= Date.now()) {
      return { ok: false, message: 'Invalid params: requestState has expired; send the request again without requestState and inputResponses' }
    }
    prior = payload
  }
  return { ok: true, replay: new InputReplay(context, responses ?? NO_RESPONSES, prior) }
}

export class InputReplay implements ClientRequests {
  readonly #context: ReplayContext
  readonly #responses: JsonObject
  readonly #prior: StatePayload | undefined
  // Created on the first question: most requests that may ask never do, and pay for none of them.
  #keys: Set<string> | undefined
  #counters: Map<ClientRequestMethod, number> | undefined
  // Maps, not objects: a key such as "__proto__" must stay an ordinary key.
  #used: Map<string, Answer> | undefined
  #asked: Map<string, JsonObject> | undefined
  /**
   * A malformed answer or a misused key met in this attempt: reported even
   * when a sibling call (under `Promise.all`) ended the attempt first.
   */
  #fatal: Error | undefined

  constructor (context: ReplayContext, responses: JsonObject, prior: StatePayload | undefined) {
    this.#context = context
    this.#responses = responses
    this.#prior = prior
  }

  get requestState (): string | undefined {
    return this.#prior?.h
  }

  send (method: ClientRequestMethod, params: JsonObject, options?: ClientRequestOptions): Promise<JsonObject> {
    try {
      return Promise.resolve(this.#answer(method, params, options?.key))
    } catch (err) {
      return rejected(err)
    }
  }

  #answer (method: ClientRequestMethod, params: JsonObject, explicitKey: string | undefined): JsonObject {
    const key = this.#claimKey(method, explicitKey)
    const q = questionDigest(method, params)
    let answer: JsonObject | undefined
    const prior = this.#prior
    const earlier = prior !== undefined && Object.hasOwn(prior.a, key) ? prior.a[key] : undefined
    if (earlier !== undefined && earlier.q === q) {
      answer = earlier.r
    } else if (Object.hasOwn(this.#responses, key) && (prior === undefined || (Object.hasOwn(prior.q, key) && prior.q[key] === q))) {
      // Under a state, only an answer to the question it records as asked. Without one (a first
      // round), the client may answer up front (SEP-2322): an answer is the client's word either way.
      answer = this.#responses[key] as JsonObject
      const problem = answerProblem(method, answer)
      if (problem !== undefined) {
        this.#fatal ??= new McpError(ErrorCode.InvalidParams, `Invalid params: inputResponses[${quote(key)}] ${problem}`)
        throw this.#fatal
      }
    }
    if (answer !== undefined) {
      this.#used ??= new Map()
      this.#used.set(key, { q, r: answer })
      return answer
    }
    requireCapabilityFor(method, params, this.#context.clientCapabilities)
    this.#asked ??= new Map()
    this.#asked.set(key, { method, params })
    throw new InputRequiredSignal()
  }

  #claimKey (method: ClientRequestMethod, explicitKey: string | undefined): string {
    try {
      return this.#newKey(method, explicitKey)
    } catch (err) {
      this.#fatal ??= err as Error
      throw err
    }
  }

  #newKey (method: ClientRequestMethod, explicitKey: string | undefined): string {
    let key: string
    if (explicitKey === undefined) {
      const counters = this.#counters ??= new Map()
      const n = (counters.get(method) ?? 0) + 1
      counters.set(method, n)
      key = `${INPUT_KEY_PREFIX[method]}-${n}`
    } else {
      if (typeof explicitKey !== 'string' || explicitKey.length === 0) throw new TypeError('options.key must be a non-empty string')
      key = explicitKey
    }
    const keys = this.#keys ??= new Set()
    if (keys.has(key)) throw new TypeError(`input request key "${key}" is used twice while serving one request`)
    keys.add(key)
    return key
  }

  /**
   * Completes an `input_required` result: the requests this attempt gathered
   * plus any the handler built by hand, and a freshly signed `requestState`.
   * Throws -32602 when the attempt met a malformed answer, a TypeError for a
   * misused key, -32021 when a
   * request needs a capability the client did not declare, and a plain Error
   * for a malformed hand-built result.
   */
  seal (result: JsonObject): JsonObject {
    if (this.#fatal !== undefined) throw this.#fatal
    const { method, params, clientCapabilities, codec, ttlMs } = this.#context
    const inputRequests = new Map(this.#asked ?? [])
    if (result.inputRequests !== undefined) {
      if (!isJsonObject(result.inputRequests)) throw new Error('an input_required result\'s inputRequests must be an object')
      for (const [key, request] of Object.entries(result.inputRequests)) {
        if (!isJsonObject(request) || !CLIENT_METHODS.has(request.method) || (request.params !== undefined && !isJsonObject(request.params))) {
          throw new Error(`inputRequests[${JSON.stringify(key)}] must be { method: elicitation/create | sampling/createMessage | roots/list, params? }`)
        }
        requireCapabilityFor(request.method as string, (request.params ?? {}) as JsonObject, clientCapabilities)
        inputRequests.set(key, request)
      }
    }
    const own = result.requestState
    if (own !== undefined && typeof own !== 'string') throw new Error('an input_required result\'s requestState must be a string')

    const asked = Object.fromEntries([...inputRequests].map(([key, request]) => [key, questionDigest(request.method as string, request.params)]))
    const payload: StatePayload = { v: STATE_VERSION, m: method, d: requestDigest(method, params), x: Date.now() + ttlMs, a: Object.fromEntries(this.#used ?? []), q: asked }
    if (own !== undefined) payload.h = own

    const { inputRequests: _given, requestState: _own, ...rest } = result
    const out: JsonObject = { ...rest, resultType: 'input_required' }
    if (inputRequests.size > 0) out.inputRequests = Object.fromEntries(inputRequests)
    out.requestState = codec.seal(payload as unknown as JsonObject, this.#context.caller())
    return out
  }
}
