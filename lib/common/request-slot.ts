/**
 * Private per-request slots. A module that keeps something per request owns
 * one (`new RequestSlot<T>()`), read and written only through it; every
 * slot lives in one record under one symbol, declared once with
 * `decorateRequest` (as Fastify core declares its own symbols), so request
 * objects keep one shape.
 *
 * One symbol, not one per slot: Fastify stores every declared value on every
 * request it makes, on every route of the app (the plugin is not
 * encapsulated), and each store of a symbol key is a megamorphic keyed store.
 * The record itself is made on the first write, which most requests never
 * make (no authorization, hook, task, session or error).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'

const kSlots: unique symbol = Symbol('fastify-mcp-capabilities.slots')

type WithSlots = FastifyRequest & { [kSlots]?: unknown[] | null }

/** Slots made so far: the length a new record starts with. */
let slotCount = 0

/** Declares the record's symbol up front (once per instance that serves the endpoint). */
export function declareRequestSlots (fastify: FastifyInstance): void {
  fastify.decorateRequest(kSlots, null)
}

export class RequestSlot<T> {
  readonly #index = slotCount++

  /** The value kept for `request`; undefined when none was. */
  get (request: FastifyRequest): T | undefined {
    const slots = (request as WithSlots)[kSlots]
    return slots === null || slots === undefined ? undefined : slots[this.#index] as T | undefined
  }

  set (request: FastifyRequest, value: T): void {
    const holder = request as WithSlots
    const slots = holder[kSlots] ?? (holder[kSlots] = new Array<unknown>(slotCount).fill(undefined))
    slots[this.#index] = value
  }
}
