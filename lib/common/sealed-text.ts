/**
 * Text sealed for a round trip through a client: encrypted and authenticated
 * with AES-256-GCM under keys derived from the deployment's secrets
 * (derived-keys.ts, one `domain` per use), bound to additional data the
 * caller names (who or what the text was issued for). Opaque to the client,
 * opened on every instance given the same secrets, refused when altered,
 * forged or replayed for other additional data.
 *
 * Token: base64url(iv[12] | ciphertext | tag[16]). The first secret seals;
 * every secret opens, so a secret can be rotated.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { DerivedKeys } from './derived-keys.js'

const IV_BYTES = 12
const TAG_BYTES = 16
const TOKEN_TEXT = /^[A-Za-z0-9_-]+$/

/** The length of the token sealing `bytes` bytes of text. */
export function sealedLength (bytes: number): number {
  return Math.ceil((IV_BYTES + bytes + TAG_BYTES) * 4 / 3)
}

export class SealedText {
  readonly #keys: DerivedKeys

  constructor (secrets: readonly Buffer[], domain: string) {
    if (secrets.length === 0) throw new TypeError('SealedText needs at least one secret')
    this.#keys = new DerivedKeys(secrets, domain)
  }

  /** A token of `text`, bound to `additionalData`. */
  seal (text: string, additionalData: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#keys.sealing, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(Buffer.from(additionalData, 'utf8'))
    return Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url')
  }

  /** The text of a token this deployment sealed for `additionalData`; undefined for anything else, or one longer than `maxLength`. */
  open (token: unknown, additionalData: string, maxLength: number): string | undefined {
    if (typeof token !== 'string' || token.length > maxLength || !TOKEN_TEXT.test(token)) return undefined
    const sealed = Buffer.from(token, 'base64url')
    // base64url has several spellings of some bytes: only the one seal writes
    if (sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString('base64url') !== token) return undefined
    const iv = sealed.subarray(0, IV_BYTES)
    const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)
    const tag = sealed.subarray(sealed.length - TAG_BYTES)
    const aad = Buffer.from(additionalData, 'utf8')
    for (const key of this.#keys.all) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
        decipher.setAAD(aad)
        decipher.setAuthTag(tag)
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
      } catch {
        // another key's, or not a token at all
      }
    }
    return undefined
  }
}
