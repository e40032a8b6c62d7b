/**
 * A shared part (event bus, answer router) serves one endpoint for its
 * whole life: the endpoint closes it when its app closes, and a router hands
 * answers to the one receiver attached to it. A second endpoint given the
 * same object would lose its answers to the first and its bus at the first
 * one's close, so registration refuses it up front.
 */
import { FST_MCP_INVALID_OPTION } from '../errors.js'

const claimed = new WeakSet<object>()

/** Marks each given part as this endpoint's; throws, claiming none, when another endpoint (open or closed) has one. */
export function claimParts (parts: Readonly<Record<string, object | undefined>>): void {
  const given = Object.entries(parts).filter((entry): entry is [string, object] => entry[1] !== undefined)
  for (const [option, part] of given) {
    if (claimed.has(part)) {
      throw new FST_MCP_INVALID_OPTION(option, 'is already used by another endpoint (it closes with that one, and a router answers only one): give each endpoint its own, e.g. call redisScale() once per endpoint')
    }
  }
  for (const [, part] of given) claimed.add(part)
}
