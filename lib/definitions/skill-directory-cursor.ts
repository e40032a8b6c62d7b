/**
 * Sealed `resources/directory/read` cursors. A folder's page ends at a
 * child's URI and the next page starts after it, which stays right while
 * children come and go (a dynamic skill's folder is made per request). But
 * with `filterLists` a page is filtered after it is cut, so its last child
 * may be one the caller does not see: the cursor must not name it. It is the
 * URI sealed (lib/common/sealed-text.ts) under keys derived from the
 * deployment's secrets, like the list cursors' (cursor-seal.ts), bound to
 * the folder: opaque to clients, opened on every instance given the same
 * secret, for the folder it was issued for only.
 */
import { randomBytes } from 'node:crypto'
import { SealedText, sealedLength } from '../common/sealed-text.js'
import { MAX_SKILL_URI_LENGTH } from './skill-files.js'

/** Separates these keys from anything else the same secret protects (cursor-seal.ts, lib/input/request-state.ts). */
const DOMAIN = 'fastify-mcp-capabilities/directory-cursor/v1'
/** The longest cursor read at all: that of the longest URI a skill can have (ASCII: percent-encoded). */
const MAX_CURSOR_LENGTH = sealedLength(MAX_SKILL_URI_LENGTH)

export class DirectoryCursors {
  readonly #sealed: SealedText

  /** Without secrets: a random key of this process (cursors then open only here). */
  constructor (secrets: readonly Buffer[] = [randomBytes(32)]) {
    this.#sealed = new SealedText(secrets, DOMAIN)
  }

  /** A cursor of `folder` whose next page starts after `lastUri`. */
  seal (folder: string, lastUri: string): string {
    return this.#sealed.seal(lastUri, folder)
  }

  /** The URI a cursor this deployment issued for `folder` ends at; undefined for anything else. */
  open (cursor: unknown, folder: string): string | undefined {
    return this.#sealed.open(cursor, folder, MAX_CURSOR_LENGTH)
  }
}
