/**
 * A definition key nobody reads is a mistake that vanishes: in JavaScript,
 * `inputs:` instead of `input:` would give a tool without arguments. Unknown
 * keys fail the definition, with the key probably meant.
 */
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { closestName } from '../protocol/near-miss.js'

export function checkKnownKeys (definition: Record<string, unknown>, known: readonly string[], where: string): void {
  for (const key of Object.keys(definition)) {
    if (known.includes(key)) continue
    const meant = closestName(key, known)
    const hint = meant === undefined ? '' : `; did you mean "${meant}"?`
    throw new FST_MCP_INVALID_DEFINITION(where, `unknown key "${key}"${hint} (known: ${known.join(', ')})`)
  }
}
