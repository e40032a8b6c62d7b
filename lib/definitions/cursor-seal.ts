/**
 * Sealed list cursors: a catalogue accepts only the cursors it issued,
 * without remembering them. A cursor is the last sequence number served and
 * an HMAC-SHA256 tag over it and the list's view, under a key derived
 * (HKDF-SHA256) from the deployment's secret (`requestState.secret`), so a
 * cursor one instance issued opens on every instance given the same secret
 * and the same catalogue (sequence numbers follow the order of definition).
 * The first secret seals; every secret opens, so a secret can be rotated.
 * Anything else (a forged number, another list's cursor, a cursor of another
 * deployment) is refused before any page is looked up or made.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { DerivedKeys } from '../common/derived-keys.js'

/** Separates these keys from anything else the same secret protects (lib/input/request-state.ts). */
const DOMAIN = 'fastify-mcp-capabilities/list-cursor/v1'
/** 128 bits of tag: forging one is guessing. */
const TAG_BYTES = 16
/** Sequence numbers are positive safe integers, written in base 36. */
const CURSOR_TEXT = /^([1-9a-z][0-9a-z]{0,10})\.([A-Za-z0-9_-]{22})$/
/** The longest cursor read at all (a sealed one is at most 34 characters). */
const MAX_CURSOR_LENGTH = 64

export class CursorSeal {
  readonly #keys: DerivedKeys

  /** Without secrets: a random key of this process (cursors then open only here). */
  constructor (secrets: readonly Buffer[] = [randomBytes(32)]) {
    if (secrets.length === 0) throw new TypeError('CursorSeal needs at least one secret')
    this.#keys = new DerivedKeys(secrets, DOMAIN)
  }

  seal (view: string, seq: number): string {
    const text = seq.toString(36)
    return text + '.' + this.#tag(this.#keys.sealing, view, text).toString('base64url')
  }

  /** The sequence number of a cursor this seal issued for `view`; undefined for anything else. */
  open (cursor: unknown, view: string): number | undefined {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) return undefined
    const match = CURSOR_TEXT.exec(cursor)
    if (match === null) return undefined
    const text = match[1] as string
    const tag = Buffer.from(match[2] as string, 'base64url')
    // base64url has several spellings of some bytes: only the one this seal writes.
    if (tag.length !== TAG_BYTES || tag.toString('base64url') !== match[2]) return undefined
    for (const key of this.#keys.all) {
      if (timingSafeEqual(this.#tag(key, view, text), tag)) {
        const seq = Number.parseInt(text, 36)
        return Number.isSafeInteger(seq) ? seq : undefined
      }
    }
    return undefined
  }

  #tag (key: Buffer, view: string, seqText: string): Buffer {
    return createHmac('sha256', key).update(view).update('\n').update(seqText).digest().subarray(0, TAG_BYTES)
  }
}
