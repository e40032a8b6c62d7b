/**
 * Sealed `resources/directory/read` cursors. A folder's page ends at a
 * child's URI and the next page starts after it, which stays right while
 * children come and go (a dynamic skill's folder is made per request). But
 * with `filterLists` a page is filtered after it is cut, so its last child
 * may be one the caller does not see: the cursor must not name it. It is the
 * URI encrypted and authenticated (AES-256-GCM, the folder as associated
 * data) under a key derived from the deployment's secrets, like the list
 * cursors' (cursor-seal.ts): opaque to clients, opened on every instance
 * given the same secret, for the folder it was issued for only.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { DerivedKeys } from '../common/derived-keys.js'
import { MAX_SKILL_URI_LENGTH } from './skill-files.js'

/** Separates these keys from anything else the same secret protects (cursor-seal.ts, lib/input/request-state.ts). */
const DOMAIN = 'fastify-mcp-capabilities/directory-cursor/v1'
const IV_BYTES = 12
const TAG_BYTES = 16
/** The longest cursor read at all: that of the longest URI a skill can have, in base64url. */
const MAX_CURSOR_LENGTH = Math.ceil((IV_BYTES + MAX_SKILL_URI_LENGTH + TAG_BYTES) * 4 / 3)
const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/

export class DirectoryCursors {
  readonly #keys: DerivedKeys

  /** Without secrets: a random key of this process (cursors then open only here). */
  constructor (secrets: readonly Buffer[] = [randomBytes(32)]) {
    if (secrets.length === 0) throw new TypeError('DirectoryCursors needs at least one secret')
    this.#keys = new DerivedKeys(secrets, DOMAIN)
  }

  /** A cursor of `folder` whose next page starts after `lastUri`. */
  seal (folder: string, lastUri: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#keys.sealing, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(Buffer.from(folder, 'utf8'))
    const sealed = Buffer.concat([iv, cipher.update(lastUri, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return sealed.toString('base64url')
  }

  /** The URI a cursor this deployment issued for `folder` ends at; undefined for anything else. */
  open (cursor: unknown, folder: string): string | undefined {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_TEXT.test(cursor)) return undefined
    const sealed = Buffer.from(cursor, 'base64url')
    // base64url has several spellings of some bytes: only the one seal writes.
    if (sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString('base64url') !== cursor) return undefined
    const iv = sealed.subarray(0, IV_BYTES)
    const text = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)
    const tag = sealed.subarray(sealed.length - TAG_BYTES)
    for (const key of this.#keys.all) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
        decipher.setAAD(Buffer.from(folder, 'utf8'))
        decipher.setAuthTag(tag)
        return Buffer.concat([decipher.update(text), decipher.final()]).toString('utf8')
      } catch {
        // Not this key's (or not a cursor at all): try the next.
      }
    }
    return undefined
  }
}
