/**
 * The files of a skill, as the Skills extension serves them: read once
 * (from a directory on disk or given in memory), their bytes kept, so the
 * SHA-256 digest and size published in the skill's manifest are those of
 * exactly the bytes `resources/read` returns; a file changed on disk later
 * is served only after the skill is defined again (`fastify.mcp.skills.update`).
 *
 * Reading a directory never leaves it: a symbolic link whose target is
 * outside the skill's root is refused, as is anything but files and
 * folders; names starting with "." (`.git`, `.DS_Store`) are skipped. A
 * skill stays within the extension's bounds: 512 files and 16 MiB.
 */
import { createHash } from 'node:crypto'
import { isUtf8 } from 'node:buffer'
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'

/** The extension's limits per skill: hosts must accept skills up to them, servers should stay within them. */
export const MAX_SKILL_FILES = 512
export const MAX_SKILL_BYTES = 16 * 1024 * 1024
/** A skill's path (`acme/billing/refunds`), in characters: unreserved URI characters only (lib/definitions/skills.ts). */
export const MAX_SKILL_PATH_LENGTH = 512
/** A file's path relative to its skill's root, in characters (UTF-16 code units). */
export const MAX_FILE_PATH_LENGTH = 1024
/**
 * The longest URI a skill's file or folder can have: `skill://`, the path,
 * `/` and the file's path percent-encoded (uriSegment), where one UTF-16
 * code unit takes at most nine characters (three UTF-8 bytes as `%XX`).
 */
export const MAX_SKILL_URI_LENGTH = 'skill://'.length + MAX_SKILL_PATH_LENGTH + 1 + 9 * MAX_FILE_PATH_LENGTH
/** What `find` answers for the nearest of the folders enclosing `uri` (up to, not including, the scheme's `scheme://`) that it knows. */
export function nearestAbove<T> (uri: string, find: (folder: string) => T | undefined): T | undefined {
  const top = uri.indexOf('://') + 2
  for (let cut = uri.lastIndexOf('/'); cut > top; cut = uri.lastIndexOf('/', cut - 1)) {
    const found = find(uri.slice(0, cut))
    if (found !== undefined) return found
  }
  return undefined
}

/** Folder depth read below a skill's root (or a folder of skills). */
const MAX_DEPTH = 32

export const SKILL_MD = 'SKILL.md'
export const DIRECTORY_MIME_TYPE = 'inode/directory'

/** A file's problem: which file (relative to the skill's root, or the folder read) and why. */
export class SkillFileProblem extends Error {
  readonly file: string
  constructor (file: string, message: string) {
    super(message)
    this.file = file
  }
}

/** `sha256:` and the 64 lowercase hexadecimal digits of the SHA-256 of `bytes`. */
export function digestOf (bytes: Uint8Array): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex')
}

const MIME_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.py': 'text/x-python',
  '.sh': 'application/x-sh',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.sql': 'application/sql',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip'
})

/** The MIME type a file is served with: by its extension, else text or bytes by its content. */
export function mimeTypeOf (path: string, bytes: Uint8Array): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? (isUtf8(bytes) ? 'text/plain' : 'application/octet-stream')
}

/**
 * Why `path` (relative, "/"-separated) cannot name a file of a skill, or
 * undefined: no empty, "." or ".." segment, no NUL or backslash, no leading "/".
 */
export function filePathProblem (path: string): string | undefined {
  if (path.length === 0 || path.length > MAX_FILE_PATH_LENGTH) return `must be 1 to ${MAX_FILE_PATH_LENGTH} characters`
  if (path.includes('\0') || path.includes('\\')) return 'may not hold NUL or "\\"'
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'must be a relative path of non-empty segments, without "." or ".."'
  }
  return undefined
}

/** The files of a skill by relative path, read from `root` (a folder holding SKILL.md). */
export function readSkillDirectory (root: string, shared?: Map<string, Buffer>): Map<string, Buffer> {
  let realRoot: string
  try {
    realRoot = realpathSync(root)
    if (!statSync(realRoot).isDirectory()) throw new SkillFileProblem(root, 'is not a folder')
  } catch (err) {
    if (err instanceof SkillFileProblem) throw err
    throw new SkillFileProblem(root, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  const files = new Map<string, Buffer>()
  let total = 0
  const walk = (dir: string, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) throw new SkillFileProblem(prefix, `is nested deeper than ${MAX_DEPTH} folders`)
    const names = readdirSync(dir).sort()
    for (const name of names) {
      if (name.startsWith('.')) continue
      const relativePath = prefix === '' ? name : `${prefix}/${name}`
      const problem = filePathProblem(relativePath)
      if (problem !== undefined) throw new SkillFileProblem(relativePath, `its path ${problem}`)
      const full = join(dir, name)
      let real = full
      let stats = lstatSync(full)
      if (stats.isSymbolicLink()) {
        try {
          real = realpathSync(full)
        } catch {
          throw new SkillFileProblem(relativePath, 'is a symbolic link to nothing')
        }
        if (!isInside(realRoot, real)) throw new SkillFileProblem(relativePath, "is a symbolic link out of the skill's folder")
        stats = statSync(real)
      }
      if (stats.isDirectory()) {
        walk(real, relativePath, depth + 1)
      } else if (stats.isFile()) {
        if (files.size >= MAX_SKILL_FILES) throw new SkillFileProblem(relativePath, `the skill has more than ${MAX_SKILL_FILES} files`)
        // Checked before reading (a huge file is never read) and after (a file may have grown since).
        if (total + stats.size > MAX_SKILL_BYTES) throw new SkillFileProblem(relativePath, `the skill's files add up to more than ${MAX_SKILL_BYTES} bytes (16 MiB)`)
        let bytes = shared?.get(real)
        if (bytes === undefined) {
          bytes = readFileSync(real)
          shared?.set(real, bytes)
        }
        total += bytes.length
        if (total > MAX_SKILL_BYTES) throw new SkillFileProblem(relativePath, `the skill's files add up to more than ${MAX_SKILL_BYTES} bytes (16 MiB)`)
        files.set(relativePath, bytes)
      } else {
        throw new SkillFileProblem(relativePath, 'is neither a file nor a folder')
      }
    }
  }
  walk(realRoot, '', 0)
  return files
}

/** The folders under `root` holding a SKILL.md, as "/"-separated paths relative to it (nested ones too). */
export function findSkillFolders (root: string): string[] {
  let realRoot: string
  try {
    realRoot = realpathSync(root)
  } catch (err) {
    throw new SkillFileProblem(root, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  const found: string[] = []
  const walk = (dir: string, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) throw new SkillFileProblem(prefix, `is nested deeper than ${MAX_DEPTH} folders`)
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (entry.name.startsWith('.')) continue
      const relativePath = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      if (entry.isFile() && entry.name === SKILL_MD) {
        if (prefix === '') throw new SkillFileProblem(SKILL_MD, 'the folder is one skill, not a folder of skills: define it by its path, defineSkills({ "<name>": { directory } })')
        found.push(prefix)
      }
      let directory = entry.isDirectory()
      let next = join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        // A link out of the folder is refused when its skill is read; here it is only followed when it stays inside.
        try {
          next = realpathSync(next)
          directory = isInside(realRoot, next) && statSync(next).isDirectory()
        } catch {
          directory = false
        }
      }
      if (directory) walk(next, relativePath, depth + 1)
    }
  }
  walk(realRoot, '', 0)
  return found
}

function isInside (root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !rel.startsWith(sep)
}

/** `bytes` as a Buffer (the same memory when it is one). */
export function toBuffer (content: string | Uint8Array): Buffer {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength)
}

/** A segment of a URI path: unreserved characters kept, anything else percent-encoded (so "/" and "%" never pass as themselves). */
export function uriSegment (segment: string): string {
  return encodeURIComponent(segment)
}
