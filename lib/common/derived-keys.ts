/**
 * Keys derived with HKDF-SHA256 from the deployment's secrets, for one
 * purpose (`domain` keeps them apart from anything else the same secret
 * protects): the list-cursor seal's and the `requestState` codec's. The
 * first key seals; every key opens, so a secret can be rotated.
 *
 * Derived on first use, not when made: a start (and a server that never
 * pages or asks for input) skips the HKDF runs (issue 35, cold start).
 */
import { hkdfSync } from 'node:crypto'

export class DerivedKeys {
  readonly #secrets: readonly Buffer[]
  readonly #domain: string
  #keys: readonly Buffer[] | undefined

  constructor (secrets: readonly Buffer[], domain: string) {
    // copies: the keys are derived from what was given now, even if the caller reuses its buffers
    this.#secrets = secrets.map((secret) => Buffer.from(secret))
    this.#domain = domain
  }

  /** Every key, the sealing one first. */
  get all (): readonly Buffer[] {
    this.#keys ??= this.#secrets.map((secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), this.#domain, 32)))
    return this.#keys
  }

  /** The key new cursors or states are sealed with (the first secret's). */
  get sealing (): Buffer {
    return this.all[0] as Buffer
  }
}
