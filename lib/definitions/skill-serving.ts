/**
 * Serving a catalogue of skills: `skills/list` (prepared pages, like every
 * defined list), `skills/get` (a prepared result per skill), the skills'
 * files through `resources/read` and their folders through
 * `resources/directory/read`. A client's URI is only ever looked up, as
 * given, among the URIs the skills were defined with: no path is made from
 * it, so `..`, percent-encoded separators, other schemes or NUL find nothing
 * and answer as any unknown resource (-32602 in the modern era).
 *
 * The lookups are rebuilt when the catalogue changes (a skill added,
 * replaced, removed, disabled or enabled): what is read is always what the
 * current entry's manifest describes.
 */
import { isUtf8 } from 'node:buffer'
import { firstNotBefore } from '../common/binary-search.js'
import { isThenable } from '../common/maybe-promise.js'
import { clip } from '../protocol/describe.js'
import { ErrorCode, McpError, resourceNotFound } from '../protocol/mcp-error.js'
import type { Resource } from '../protocol/schemas.js'
import { presetJson } from '../response/frozen-json.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import type { Catalog } from './catalog.js'
import { DirectoryCursors } from './skill-directory-cursor.js'
import { COMPLETERS } from './completion.js'
import { serveList, type RawList } from './listing.js'
import { isPlainObject } from './plain.js'
import { definedOrRaw, type ScopeTable } from './required-scopes.js'
import { renderSkillMd } from './skill-frontmatter.js'
import { DIRECTORY_MIME_TYPE, filePathProblem, MAX_SKILL_BYTES, MAX_SKILL_FILES, MAX_SKILL_URI_LENGTH, mimeTypeOf, nearestAbove, SKILL_MD, toBuffer, uriSegment } from './skill-files.js'
import type { DynamicSkillContent, SkillEntry, SkillFile } from './skill-entry.js'

type AnyHandler = (params: any, ctx: HandlerContext) => unknown

/** Hand-written handlers served beside the skills, and the module's resource handlers the skills' files join. */
export interface RawSkillHandlers {
  listSkills?: RawList
  getSkill?: AnyHandler
  readResourceDirectory?: AnyHandler
  readResource?: AnyHandler
  listResources?: (params?: JsonObject, ctx?: HandlerContext) => unknown
}

/** URIs longer than this name no skill file or folder (percent-encoding included: MAX_SKILL_URI_LENGTH). */
const MAX_URI_LENGTH = MAX_SKILL_URI_LENGTH
const BINARY = /^(?:image\/(?!svg)|audio\/|video\/|application\/(?:pdf|zip|octet-stream))/

/** What one version of the catalogue serves, made on demand. */
interface Lookups {
  readonly version: number
  /**
   * Fixed files by URI, with their holder: the innermost skill whose folder
   * holds them (whose requirement, requirementOf, guards them), whichever
   * skill lists them.
   */
  readonly files: Map<string, { holder: SkillEntry, file: SkillFile }>
  /** Enabled skills by root URI, fixed and dynamic (holderOf). */
  readonly roots: Map<string, SkillEntry>
  /** Dynamic skills by root URI. */
  readonly dynamicRoots: Map<string, SkillEntry>
  /** Folders by URI: their fixed children by URI (files, folders, nested skills' roots). */
  readonly folders: Map<string, Map<string, Resource>>
  /** Folders' children in URI order, made when first read. */
  readonly sorted: Map<string, readonly Resource[]>
  /**
   * What reading a nested skill's files needs when it is more than its own
   * `scopes`: the union of its scopes and every enabled enclosing skill's.
   * Undefined when no skill needs more (no nesting, or no enclosing scopes).
   */
  readonly nestedRequirements: Map<SkillEntry, Requirement> | undefined
  /** What reading each folder above skills (a path prefix, which no skill holds) needs: prefixRequirements. */
  readonly prefixes: Map<string, Requirement>
}

/** The scopes a skill's files, folders and `skills/get` need (a skill itself when they are its own `scopes`). */
interface Requirement { readonly scopes: readonly string[] | undefined }

/** What reading `entry`'s files (and getting it) needs: its own scopes and those of every enabled skill enclosing it. */
function requirementOf (lookups: Lookups, entry: SkillEntry): Requirement {
  return lookups.nestedRequirements?.get(entry) ?? entry
}

/**
 * Each enabled nested skill's union of scopes, where it adds to its own.
 * `entries` go enclosing skills first, so the nearest encloser's union (which
 * holds those of the skills above it) is known when a skill nested in it is met.
 */
function unionsOf (entries: readonly SkillEntry[]): Map<SkillEntry, Requirement> | undefined {
  let unions: Map<SkillEntry, Requirement> | undefined
  const byRoot = new Map<string, SkillEntry>()
  for (const entry of entries) {
    byRoot.set(entry.root, entry)
    const encloser = nearestAbove(entry.root, (folder) => byRoot.get(folder))
    if (encloser === undefined) continue
    const enclosing = unions?.get(encloser)?.scopes ?? encloser.scopes ?? []
    const own = entry.scopes ?? []
    const added = enclosing.filter((scope) => !own.includes(scope))
    if (added.length === 0) continue
    unions ??= new Map()
    unions.set(entry, Object.freeze({ scopes: Object.freeze([...own, ...added]) }))
  }
  return unions
}

/**
 * What reading each folder above skills needs (a path prefix, which no skill
 * holds): the scopes that every enabled skill below it needs, so a filtered
 * list shows it only to a caller who may read one of them, and its listing
 * names no part of a hidden skill's path (none when one skill below needs
 * none). Only outermost skills count: a nested one needs its enclosers' too.
 */
function prefixRequirements (entries: readonly SkillEntry[], roots: ReadonlyMap<string, SkillEntry>): Map<string, Requirement> {
  const prefixes = new Map<string, Requirement>()
  for (const entry of entries) {
    if (nearestAbove(entry.root, (folder) => roots.get(folder)) !== undefined) continue
    const own = entry.scopes ?? []
    const top = entry.root.indexOf('://') + 2
    for (let cut = entry.root.lastIndexOf('/'); cut > top; cut = entry.root.lastIndexOf('/', cut - 1)) {
      const folder = entry.root.slice(0, cut)
      const shared = prefixes.get(folder)?.scopes
      prefixes.set(folder, Object.freeze({ scopes: Object.freeze(shared === undefined ? [...own] : shared.filter((scope) => own.includes(scope))) }))
    }
  }
  return prefixes
}

const readResults = new WeakMap<SkillFile, object>()

/** The `resources/read` result of a fixed file, frozen, its JSON preset (made on its first read). */
function fileResult (file: SkillFile): object {
  let result = readResults.get(file)
  if (result === undefined) {
    result = contentsOf(file.uri, file.mimeType, file.bytes)
    presetJson(result, JSON.stringify(result))
    readResults.set(file, result)
  }
  return result
}

/**
 * A file read made by a dynamic skill's `content(ctx)`, which may differ from
 * caller to caller: in the modern era `cacheScope: "private"` whatever the
 * configured hints say (a shared cache must not hand one caller's files to
 * another); `ttlMs` stays the configured one. (Folder reads carry no cache
 * hints: `resources/directory/read` is not cacheable, lib/protocol/methods.ts.)
 */
function perCaller<R extends object> (result: R, ctx: HandlerContext | undefined): R {
  return ctx?.era === 'modern' ? { ...result, cacheScope: 'private' } : result
}

/**
 * A file's `resources/read` result, frozen: text when the bytes are UTF-8 (a
 * client encodes the text back to the very bytes digested), else base64.
 */
function contentsOf (uri: string, mimeType: string, bytes: Buffer): { readonly contents: readonly object[] } {
  const content = !BINARY.test(mimeType) && isUtf8(bytes)
    ? { uri, mimeType, text: bytes.toString('utf8') }
    : { uri, mimeType, blob: bytes.toString('base64') }
  Object.freeze(content)
  return Object.freeze({ contents: Object.freeze([content]) })
}

function lastSegment (uri: string): string {
  const segment = uri.slice(uri.lastIndexOf('/') + 1)
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function folderResource (uri: string): Resource {
  return Object.freeze({ uri, name: lastSegment(uri), mimeType: DIRECTORY_MIME_TYPE })
}

/** Adds `child` to `folder`, and each folder above it up to the URI's authority. */
function addToFolders (folders: Map<string, Map<string, Resource>>, folder: string, child: Resource): void {
  let parent = folder
  let item = child
  for (;;) {
    let children = folders.get(parent)
    const known = children !== undefined
    if (children === undefined) {
      children = new Map()
      folders.set(parent, children)
    }
    if (!children.has(item.uri)) children.set(item.uri, item)
    // The folder was known: so are those above it.
    if (known) return
    const cut = parent.lastIndexOf('/')
    if (cut <= parent.indexOf('://') + 2) return
    item = folderResource(parent)
    parent = parent.slice(0, cut)
  }
}

function buildLookups (catalog: Catalog<SkillEntry>): Lookups {
  const files = new Map<string, { holder: SkillEntry, file: SkillFile }>()
  const dynamicRoots = new Map<string, SkillEntry>()
  const folders = new Map<string, Map<string, Resource>>()
  // Enclosing skills first, so a file listed by several skills keeps the enclosing skill's bytes (its manifest
  // lists them first) and unionsOf meets each encloser before the skills nested in it.
  const entries = [...catalog.enabled('skills')].sort((a, b) => a.name.length - b.name.length)
  const roots = new Map(entries.map((entry) => [entry.root, entry]))
  for (const entry of entries) {
    if (entry.files === undefined) {
      dynamicRoots.set(entry.root, entry)
      const cut = entry.root.lastIndexOf('/')
      if (cut > entry.root.indexOf('://') + 2) addToFolders(folders, entry.root.slice(0, cut), folderResource(entry.root))
      else if (!folders.has(entry.root)) folders.set(entry.root, new Map())
      continue
    }
    for (const file of entry.files.values()) {
      if (files.has(file.uri)) continue
      // A nested skill's files are its enclosing skill's supporting files too: reading one needs what its holder
      // (the innermost skill whose folder holds it, even one that does not list it) needs, nestedRequirements.
      files.set(file.uri, { holder: nearestAbove(file.uri, (folder) => roots.get(folder)) as SkillEntry, file })
      const folder = file.uri.slice(0, file.uri.lastIndexOf('/'))
      addToFolders(folders, folder, Object.freeze({ uri: file.uri, name: lastSegment(file.uri), mimeType: file.mimeType, size: file.size }))
    }
  }
  return { version: catalog.version, files, roots, dynamicRoots, folders, sorted: new Map(), nestedRequirements: unionsOf(entries), prefixes: prefixRequirements(entries, roots) }
}

/** Each catalogue's lookups, for its current version (the handlers and `nestedGuards` read the same). */
const lookupsByCatalog = new WeakMap<Catalog<SkillEntry>, Lookups>()

function lookupsOf (catalog: Catalog<SkillEntry>): Lookups {
  let lookups = lookupsByCatalog.get(catalog)
  if (lookups === undefined || lookups.version !== catalog.version) {
    lookups = buildLookups(catalog)
    lookupsByCatalog.set(catalog, lookups)
  }
  return lookups
}

/** By skill (its SKILL.md URI): the files of its manifest that need more than it does, by URI, with all they need. */
export type NestedGuards = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>

const NO_GUARDS: NestedGuards = new Map()
const guardsByCatalog = new WeakMap<Catalog<SkillEntry>, { readonly version: number, readonly guards: NestedGuards }>()

/** Whether an enabled skill with scopes of its own sits in another enabled skill's folder. */
function anyScopedNested (enabled: readonly SkillEntry[]): boolean {
  const byRoot = new Map(enabled.map((entry) => [entry.root, entry]))
  return enabled.some((entry) => entry.scopes !== undefined && entry.scopes.length > 0 &&
    nearestAbove(entry.root, (folder) => byRoot.get(folder)) !== undefined)
}

function buildGuards (catalog: Catalog<SkillEntry>): NestedGuards {
  const enabled = [...catalog.enabled('skills')]
  // The common case: no nested skill with scopes of its own, so each nested file needs just what every
  // skill listing it does (its enclosers' union) and no manifest differs between callers.
  if (!anyScopedNested(enabled)) return NO_GUARDS
  // A file's reader needs its owner's requirement (requirementAt below): the same lookups decide both.
  const lookups = lookupsOf(catalog)
  const guards = new Map<string, Map<string, readonly string[]>>()
  for (const entry of enabled) {
    if (entry.files === undefined) continue
    // A caller who may get the skill holds these: its files needing no more are listed to all of them.
    const held = requirementOf(lookups, entry).scopes ?? []
    for (const file of entry.files.values()) {
      const holder = lookups.files.get(file.uri)?.holder
      if (holder === undefined || holder === entry) continue
      const needed = requirementOf(lookups, holder).scopes ?? []
      if (needed.every((scope) => held.includes(scope))) continue
      let guarded = guards.get(entry.key)
      if (guarded === undefined) {
        guarded = new Map()
        guards.set(entry.key, guarded)
      }
      guarded.set(file.uri, needed)
    }
  }
  return guards
}

/**
 * The manifest files that skills nested in others guard with their own
 * scopes (reading them needs those as well as every enclosing skill's), for
 * the catalogue's current version: empty unless an enabled skill with scopes
 * is nested in another. lib/auth/skill-manifest-view.ts leaves them out of
 * the manifests of callers who lack any scope they need.
 */
export function nestedGuards (catalog: Catalog<SkillEntry>): NestedGuards {
  let known = guardsByCatalog.get(catalog)
  if (known === undefined || known.version !== catalog.version) {
    known = { version: catalog.version, guards: buildGuards(catalog) }
    guardsByCatalog.set(catalog, known)
  }
  return known.guards
}

/** The innermost skill whose root is `uri` or a folder above it: what reading `uri` needs is its requirement. */
function holderOf (lookups: Lookups, uri: string): SkillEntry | undefined {
  return lookups.roots.get(uri) ?? nearestAbove(uri, (folder) => lookups.roots.get(folder))
}

/**
 * The nearest dynamic skill whose root is `uri` or a folder above it, which
 * may make files there: even inside the folder of a fixed skill nested in it.
 */
function dynamicOwner (lookups: Lookups, uri: string): SkillEntry | undefined {
  if (lookups.dynamicRoots.size === 0) return undefined
  return lookups.dynamicRoots.get(uri) ?? nearestAbove(uri, (folder) => lookups.dynamicRoots.get(folder))
}

/** A dynamic skill's files for this request: SKILL.md rendered from the fixed frontmatter, the rest as made. */
function dynamicFiles (entry: SkillEntry, made: unknown): Map<string, { uri: string, bytes: Buffer, mimeType: string }> {
  const skill = `dynamic skill "${entry.name}"`
  if (!isPlainObject(made) || typeof made.instructions !== 'string') throw new Error(`${skill}: content() must return { instructions: string, files? }`)
  const given = made as unknown as DynamicSkillContent
  const out = new Map<string, { uri: string, bytes: Buffer, mimeType: string }>()
  const frontmatter = (entry.dynamic as NonNullable<SkillEntry['dynamic']>).frontmatter
  out.set(SKILL_MD, { uri: entry.key, bytes: Buffer.from(renderSkillMd(frontmatter, given.instructions)), mimeType: 'text/markdown' })
  if (given.files !== undefined) {
    if (!isPlainObject(given.files)) throw new Error(`${skill}: "files" must be an object of contents by relative path`)
    for (const [path, content] of Object.entries(given.files)) {
      const problem = filePathProblem(path)
      if (problem !== undefined || path === SKILL_MD) throw new Error(`${skill}: the file path ${JSON.stringify(path.slice(0, 200))} ${problem ?? 'is made from "instructions"'}`)
      if (typeof content !== 'string' && !(content instanceof Uint8Array)) throw new Error(`${skill}: the content of ${path} must be a string or a Uint8Array`)
      const bytes = toBuffer(content)
      out.set(path, { uri: entry.root + '/' + path.split('/').map(uriSegment).join('/'), bytes, mimeType: mimeTypeOf(path, bytes) })
    }
  }
  // The extension's bounds hold for what is made too: a host may stop reading past them.
  let total = 0
  for (const file of out.values()) total += file.bytes.length
  if (out.size > MAX_SKILL_FILES || total > MAX_SKILL_BYTES) throw new Error(`${skill}: content() made ${out.size} files, ${total} bytes (at most ${MAX_SKILL_FILES} files, ${MAX_SKILL_BYTES} bytes)`)
  return out
}

/** The last child URI a cursor names, when `cursors` issued it for `folder`; else -32602. */
function openCursor (cursors: DirectoryCursors, cursor: unknown, folder: string): string {
  const last = cursors.open(cursor, folder)
  if (last !== undefined && last.startsWith(folder + '/')) return last
  throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor (start again without one)')
}

/**
 * One page of a folder's children (URI order), after the cursor's child. The
 * next cursor is sealed: a filtered page may end at a child its caller does
 * not see (lib/definitions/skill-directory-cursor.ts).
 */
function pageOf (cursors: DirectoryCursors, children: readonly Resource[], folder: string, cursor: unknown, pageSize: number | undefined): JsonObject {
  const after = cursor === undefined ? undefined : openCursor(cursors, cursor, folder)
  const start = after === undefined ? 0 : firstNotBefore(children.length, (i) => (children[i] as Resource).uri <= after)
  if (pageSize === undefined || children.length - start <= pageSize) return { resources: start === 0 ? children : children.slice(start) }
  const page = children.slice(start, start + pageSize)
  return { resources: page, nextCursor: cursors.seal(folder, (page[page.length - 1] as Resource).uri) }
}

function notADirectory (uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `${clip(uri)} is not a directory resource`, { uri })
}

export interface SkillHandlers {
  listSkills: (params?: JsonObject, ctx?: HandlerContext) => any
  getSkill: (params: JsonObject, ctx?: HandlerContext) => any
  readResourceDirectory: (params: JsonObject, ctx: HandlerContext) => any
  readResource: (params: JsonObject, ctx: HandlerContext) => any
  listResources: (params?: JsonObject, ctx?: HandlerContext) => any
}

const NO_RESOURCES = presetJson({ resources: Object.freeze([]) }, '{"resources":[]}')

/**
 * The handlers of `catalog`: `listSkills`, `getSkill`, `readResourceDirectory`,
 * and `readResource` / `listResources` serving the skills' files before the
 * module's own resources (`raw`), which keep their scopes and completers.
 * `scopes`: the composed module's table (the skills' requirements go before
 * those already there for the same handlers). `cursors`: what directory
 * cursors are sealed with (by default a key of this process).
 */
export function skillHandlers (catalog: Catalog<SkillEntry>, raw: RawSkillHandlers, pageSize: number | undefined, scopes?: ScopeTable, cursors = new DirectoryCursors()): SkillHandlers {
  const current = (): Lookups => lookupsOf(catalog)

  function getSkill (params: JsonObject, ctx?: HandlerContext): unknown {
    const uri = params.uri
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be the URI of a skill\'s SKILL.md')
    const entry = catalog.byKey(uri)
    if (entry !== undefined) return entry.getResult
    if (raw.getSkill !== undefined && !catalog.hasKey(uri)) return raw.getSkill(params, ctx as HandlerContext)
    throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${clip(uri)}`, { uri })
  }

  /** A skill file's result, or undefined when `uri` is no skill's file. */
  function readSkillFile (uri: string, ctx: HandlerContext): object | Promise<object> | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined
    const found = current()
    const fixed = found.files.get(uri)
    if (fixed !== undefined) return fileResult(fixed.file)
    const entry = dynamicOwner(found, uri)
    if (entry === undefined || uri === entry.root) return undefined
    const made = (entry.dynamic as NonNullable<SkillEntry['dynamic']>).content(ctx)
    const serve = (value: unknown): object => {
      for (const file of dynamicFiles(entry, value).values()) {
        if (file.uri === uri) return perCaller(contentsOf(uri, file.mimeType, file.bytes), ctx)
      }
      throw resourceNotFound(uri)
    }
    return isThenable(made) ? Promise.resolve(made).then(serve) : serve(made)
  }

  const previousRead = raw.readResource
  function readResource (params: JsonObject, ctx: HandlerContext): unknown {
    const uri = params.uri
    const served = typeof uri === 'string' ? readSkillFile(uri, ctx) : undefined
    if (served !== undefined) return served
    if (previousRead !== undefined) return previousRead(params, ctx)
    throw resourceNotFound(String(uri))
  }
  /**
   * What reading a URI (file or folder) a skill serves needs: the requirement
   * of the innermost skill whose folder holds it, fixed or dynamic, whoever
   * serves it (a dynamic skill's files inside a fixed skill nested in it need
   * that skill's scopes too). None for a URI no skill serves. `asFolder`:
   * the URI is read as a folder, which a fixed file may share its URI with
   * (skill `a` listing a file `b` beside the skill `a/b`): the folder needs
   * what its own innermost skill needs, never just the file's holder; a
   * folder above skills what they all need (prefixRequirements).
   */
  const requirementAt = (uri: unknown, asFolder: boolean): Requirement | undefined => {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return undefined
    const found = current()
    const file = found.files.get(uri)?.holder
    // A file read (the common case) needs no folder lookup.
    if (file !== undefined && !asFolder) return requirementOf(found, file)
    const folder = found.folders.has(uri) || dynamicOwner(found, uri) !== undefined
    const served = folder ? holderOf(found, uri) : file
    if (served !== undefined) return requirementOf(found, served)
    // A path prefix: reading it as a file finds nothing, for any caller.
    return asFolder ? found.prefixes.get(uri) : undefined
  }
  if (scopes !== undefined) scopes.readResource = definedOrRaw((params) => requirementAt(params.uri, false), scopes.readResource)
  // The module's resource templates keep their completers on the handler that now serves them.
  const completers = previousRead === undefined ? undefined : (previousRead as { [COMPLETERS]?: unknown })[COMPLETERS]
  if (completers !== undefined) Object.defineProperty(readResource, COMPLETERS, { value: completers, enumerable: false })

  function readResourceDirectory (params: JsonObject, ctx: HandlerContext): unknown {
    const uri = params.uri
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "uri" must be the URI of a directory resource')
    if (uri.length > MAX_URI_LENGTH) throw notADirectory(uri)
    const found = current()
    const entry = dynamicOwner(found, uri)
    if (entry !== undefined) {
      const made = (entry.dynamic as NonNullable<SkillEntry['dynamic']>).content(ctx)
      const serve = (value: unknown): JsonObject => {
        // The fixed skills nested in it (their files, folders and roots) first: a fixed file is served before a made one.
        const children = new Map<string, Resource>(found.folders.get(uri))
        for (const file of dynamicFiles(entry, value).values()) {
          if (!file.uri.startsWith(uri + '/')) continue
          const rest = file.uri.slice(uri.length + 1)
          const cut = rest.indexOf('/')
          const child = cut === -1
            ? { uri: file.uri, name: lastSegment(file.uri), mimeType: file.mimeType, size: file.bytes.length }
            : folderResource(uri + '/' + rest.slice(0, cut))
          if (!children.has(child.uri)) children.set(child.uri, child)
        }
        if (children.size === 0) throw notADirectory(uri)
        return pageOf(cursors, [...children.values()].sort((a, b) => a.uri < b.uri ? -1 : 1), uri, params.cursor, pageSize)
      }
      return isThenable(made) ? Promise.resolve(made).then(serve) : serve(made)
    }
    let sorted = found.sorted.get(uri)
    if (sorted === undefined) {
      const children = found.folders.get(uri)
      if (children === undefined) {
        if (raw.readResourceDirectory !== undefined) return raw.readResourceDirectory(params, ctx)
        throw notADirectory(uri)
      }
      sorted = Object.freeze([...children.values()].sort((a, b) => a.uri < b.uri ? -1 : 1))
      found.sorted.set(uri, sorted)
    }
    return pageOf(cursors, sorted, uri, params.cursor, pageSize)
  }
  if (scopes !== undefined) {
    scopes.readResourceDirectory = definedOrRaw((params) => requirementAt(params.uri, true), scopes.readResourceDirectory)
    scopes.getSkill = definedOrRaw((params) => {
      const entry = typeof params.uri === 'string' ? catalog.byKey(params.uri) : undefined
      return entry === undefined ? undefined : requirementOf(current(), entry)
    }, scopes.getSkill)
  }

  return {
    listSkills: (params?: JsonObject, ctx?: HandlerContext) => serveList(catalog, 'skills', 'uri', params, ctx, pageSize, raw.listSkills),
    getSkill,
    readResourceDirectory,
    readResource,
    // Skills need the resources capability (their files are resources): a module with no resources lists none.
    listResources: raw.listResources ?? (() => NO_RESOURCES)
  }
}
