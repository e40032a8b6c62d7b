/**
 * `defineSkills` and `defineSkill`: Agent Skills served by the Skills
 * extension (`io.modelcontextprotocol/skills`). A skill is a folder of files,
 * `SKILL.md` first; it is served under `skill://<path>/<file>`, where the
 * last segment of `<path>` is the skill's `name`.
 *
 * - from disk: `defineSkills('./skills')` serves every folder below holding
 *   a `SKILL.md` (its path relative to the folder is the skill's path);
 *   `defineSkills({ 'team/review': { directory: './review' } })` one folder;
 * - in memory: `{ files: { 'SKILL.md': '---\nname: …', 'references/x.md': … } }`;
 * - dynamic: `{ frontmatter, content: (ctx) => ({ instructions, files }) }`,
 *   made per request; its entry's `resources` is `"dynamic"`.
 *
 * Everything is checked here, when defined, with FST_MCP_INVALID_SKILL
 * naming the skill and the file: the frontmatter (skill-frontmatter.ts),
 * the paths, the bounds and links (skill-files.ts). The entry listed by
 * `skills/list` and `skills/get` is made once, its manifest from the bytes
 * kept for `resources/read`. The handlers are in skill-serving.ts.
 */
import { FST_MCP_INVALID_DEFINITION, FST_MCP_INVALID_SKILL } from '../errors.js'
import type { GetSkillParams, GetSkillResult, ListResourcesResult, ListSkillsResult, ReadResourceDirectoryParams, ReadResourceDirectoryResult, ReadResourceParams, ReadResourceResult } from '../protocol/schemas.js'
import { presetJson } from '../response/frozen-json.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { Catalog } from './catalog.js'
import { attachGroup, callerOrigin } from './groups.js'
import { callback, checkDefinition, deepFreeze, isPlainObject, LISTED, SCOPES } from './plain.js'
import { frontmatterProblem, parseFrontmatter, renderSkillMd, sameJson, type SkillFrontmatter, skillNameProblem } from './skill-frontmatter.js'
import { digestOf, filePathProblem, findSkillFolders, MAX_SKILL_BYTES, MAX_SKILL_PATH_LENGTH, MAX_SKILL_FILES, mimeTypeOf, readSkillDirectory, SKILL_MD, SkillFileProblem, toBuffer, uriSegment } from './skill-files.js'
import { checkSkillNesting } from './skill-nesting.js'
import { skillHandlers } from './skill-serving.js'
import type { SkillDefinition, SkillEntry, SkillFile } from './skill-entry.js'

export type { SkillFrontmatter }
export type { DynamicSkillContent, SkillDefinition, SkillEntry, SkillFileContent } from './skill-entry.js'

/** `defineSkills(folder, options)`. */
export interface SkillFolderOptions {
  /** Segments put before every skill's path (`acme/billing` serves `skill://acme/billing/<path>/…`). */
  prefix?: string
  /** Scopes every skill of the folder needs. */
  scopes?: string[]
}

export interface DefinedSkills {
  listSkills: (params?: JsonObject, ctx?: HandlerContext) => ListSkillsResult | Promise<ListSkillsResult>
  getSkill: (params: GetSkillParams, ctx?: HandlerContext) => GetSkillResult
  readResourceDirectory: (params: ReadResourceDirectoryParams, ctx: HandlerContext) => ReadResourceDirectoryResult | Promise<ReadResourceDirectoryResult>
  listResources: (params?: JsonObject, ctx?: HandlerContext) => ListResourcesResult
  readResource: (params: ReadResourceParams, ctx: HandlerContext) => ReadResourceResult | Promise<ReadResourceResult>
}

export const SKILL_SCHEME = 'skill'
/** Path segments: unreserved URI characters only (the first is the URI's authority). */
const PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/

const SKILL_FIELDS = {
  directory: LISTED,
  files: LISTED,
  frontmatter: LISTED,
  content: callback('a function (ctx) returning { instructions, files }'),
  scopes: SCOPES
}

/** Why `path` cannot be a skill's path, or undefined. */
function skillPathProblem (path: string): string | undefined {
  if (path.length === 0 || path.length > MAX_SKILL_PATH_LENGTH) return `must be 1 to ${MAX_SKILL_PATH_LENGTH} characters`
  const segments = path.split('/')
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || !PATH_SEGMENT.test(segment)) return 'must be "/"-separated segments of letters, digits, ".", "_", "~" and "-" (no "." or ".." segment)'
  }
  const problem = skillNameProblem(segments[segments.length - 1] as string)
  return problem === undefined ? undefined : `ends in the skill's name, which ${problem}`
}

function fileUri (root: string, path: string): string {
  return root + '/' + path.split('/').map(uriSegment).join('/')
}

/** The checked files of a skill with fixed content (from memory or disk). */
function compileFiles (skill: string, root: string, given: ReadonlyMap<string, Buffer>): { files: Map<string, SkillFile>, frontmatter: SkillFrontmatter } {
  const skillMd = given.get(SKILL_MD)
  if (skillMd === undefined) throw new FST_MCP_INVALID_SKILL(skill, SKILL_MD, 'a skill must hold a SKILL.md at its root')
  if (given.size > MAX_SKILL_FILES) throw new FST_MCP_INVALID_SKILL(skill, `${given.size} files`, `a skill may hold at most ${MAX_SKILL_FILES} files`)
  let total = 0
  const files = new Map<string, SkillFile>()
  // SKILL.md first in the manifest, then the others by path.
  const paths = [SKILL_MD, ...[...given.keys()].filter((p) => p !== SKILL_MD).sort()]
  for (const path of paths) {
    const bytes = given.get(path) as Buffer
    total += bytes.length
    if (total > MAX_SKILL_BYTES) throw new FST_MCP_INVALID_SKILL(skill, path, `the skill's files add up to more than ${MAX_SKILL_BYTES} bytes (16 MiB)`)
    files.set(path, Object.freeze({ uri: fileUri(root, path), path, bytes, size: bytes.length, digest: digestOf(bytes), mimeType: path === SKILL_MD ? 'text/markdown' : mimeTypeOf(path, bytes) }))
  }
  const text = skillMd.toString('utf8')
  const name = skill.slice(skill.lastIndexOf('/') + 1)
  const parsed = parseFrontmatter(text, name)
  if (!parsed.ok) throw new FST_MCP_INVALID_SKILL(skill, SKILL_MD, parsed.problem)
  return { files, frontmatter: parsed.frontmatter }
}

/** The files given in memory, checked and as bytes. */
function givenFiles (skill: string, files: unknown): Map<string, Buffer> {
  if (!isPlainObject(files)) throw new FST_MCP_INVALID_SKILL(skill, 'files', '"files" must be an object of file contents by relative path')
  const out = new Map<string, Buffer>()
  for (const [path, content] of Object.entries(files)) {
    const problem = filePathProblem(path)
    if (problem !== undefined) throw new FST_MCP_INVALID_SKILL(skill, JSON.stringify(path.slice(0, 200)), `a file path ${problem}`)
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) throw new FST_MCP_INVALID_SKILL(skill, path, 'a file\'s content must be a string or a Uint8Array')
    out.set(path, toBuffer(content))
  }
  return out
}

function diskFiles (skill: string, directory: string, shared?: Map<string, Buffer>): Map<string, Buffer> {
  try {
    return readSkillDirectory(directory, shared)
  } catch (err) {
    if (err instanceof SkillFileProblem) throw new FST_MCP_INVALID_SKILL(skill, err.file === directory ? directory : `${directory}: ${err.file}`, err.message)
    throw new FST_MCP_INVALID_SKILL(skill, directory, err instanceof Error ? err.message : String(err))
  }
}

/** Checks and compiles one skill (the same checks at registration and at runtime). */
export function compileSkillEntry (path: string, definition: SkillDefinition, origin: string, shared?: Map<string, Buffer>): SkillEntry {
  if (typeof path !== 'string') throw new FST_MCP_INVALID_DEFINITION('skill', 'a skill is named by its path, a string')
  const pathProblem = skillPathProblem(path)
  if (pathProblem !== undefined) throw new FST_MCP_INVALID_SKILL(path.slice(0, 200), 'its path', `a skill's path ${pathProblem}`)
  const { scopes } = checkDefinition(SKILL_FIELDS, definition, `skill "${path}"`)
  const def = definition as Record<string, unknown>
  const given = ['directory', 'files', 'content'].filter((field) => def[field] !== undefined)
  if (given.length !== 1) throw new FST_MCP_INVALID_SKILL(path, 'its definition', `give exactly one of "directory" (a folder on disk), "files" (in memory) or "content" (dynamic); got ${given.length === 0 ? 'none' : given.join(', ')}`)
  const root = `${SKILL_SCHEME}://${path}`
  const uri = `${root}/${SKILL_MD}`
  if (!URL.canParse(uri)) throw new FST_MCP_INVALID_SKILL(path, 'its path', `${uri} is not a valid URI`)
  const name = path.slice(path.lastIndexOf('/') + 1)

  let listed: Record<string, unknown>
  let files: Map<string, SkillFile> | undefined
  let dynamic: SkillEntry['dynamic']
  if (def.content !== undefined) {
    if (def.frontmatter === undefined) throw new FST_MCP_INVALID_SKILL(path, 'frontmatter', 'a dynamic skill ("content") needs its "frontmatter" ({ name, description, ... })')
    const frontmatter = frontmatterOf(path, def.frontmatter, name)
    dynamic = Object.freeze({ frontmatter, content: def.content as NonNullable<SkillDefinition['content']> })
    listed = { uri, frontmatter, resources: 'dynamic' }
  } else {
    if (def.frontmatter !== undefined) throw new FST_MCP_INVALID_SKILL(path, 'frontmatter', '"frontmatter" is for dynamic skills; a skill with files has it in its SKILL.md')
    if (def.directory !== undefined && (typeof def.directory !== 'string' || def.directory === '')) throw new FST_MCP_INVALID_SKILL(path, 'directory', '"directory" must be the path of a folder')
    const compiled = def.files !== undefined
      ? compileFiles(path, root, givenFiles(path, def.files))
      : compileFiles(path, root, diskFiles(path, def.directory as string, shared))
    files = compiled.files
    listed = { uri, frontmatter: compiled.frontmatter, resources: [...files.values()].map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })) }
  }
  deepFreeze(listed)
  const json = JSON.stringify(listed)
  const getResult = presetJson({ skill: listed }, '{"skill":' + json + '}')
  return { name: path, key: uri, root, listed, json, view: 'skills', origin, scopes, files, dynamic, getResult }
}

/** A dynamic skill's frontmatter: a JSON object that renders to YAML and reads back the same. */
function frontmatterOf (skill: string, value: unknown, name: string): SkillFrontmatter {
  if (!isPlainObject(value)) throw new FST_MCP_INVALID_SKILL(skill, 'frontmatter', '"frontmatter" must be an object ({ name, description, ... })')
  const problem = frontmatterProblem(value, name)
  if (problem !== undefined) throw new FST_MCP_INVALID_SKILL(skill, 'frontmatter', problem)
  // What the host parses from the SKILL.md served must equal the entry's frontmatter field by field.
  const parsed = parseFrontmatter(renderSkillMd(value as SkillFrontmatter, ''), name)
  if (!parsed.ok) throw new FST_MCP_INVALID_SKILL(skill, 'frontmatter', parsed.problem)
  if (!sameJson(parsed.frontmatter, value)) {
    throw new FST_MCP_INVALID_SKILL(skill, 'frontmatter', 'it must be plain JSON data (strings, numbers, booleans, null, arrays, objects) that YAML reads back unchanged')
  }
  return deepFreeze(parsed.frontmatter)
}

/** The skills below `folder` as definitions by path (each read when compiled). */
function folderSkills (folder: string, options: SkillFolderOptions): Array<[string, SkillDefinition]> {
  if (!isPlainObject(options)) throw new FST_MCP_INVALID_DEFINITION('skills', 'the options of defineSkills(folder, options) must be an object { prefix, scopes }')
  const prefix = options.prefix
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix.split('/').some((s) => s === '.' || s === '..' || !PATH_SEGMENT.test(s)))) {
    throw new FST_MCP_INVALID_DEFINITION('skills', '"prefix" must be "/"-separated segments of letters, digits, ".", "_", "~" and "-"')
  }
  let folders: string[]
  try {
    folders = findSkillFolders(folder)
  } catch (err) {
    throw new FST_MCP_INVALID_SKILL(folder, err instanceof SkillFileProblem ? err.file : folder, err instanceof Error ? err.message : String(err))
  }
  const base = folder.endsWith('/') ? folder.slice(0, -1) : folder
  const scopes = options.scopes as string[] | undefined
  return folders.map((relative): [string, SkillDefinition] => [prefix === undefined ? relative : `${prefix}/${relative}`, scopes === undefined ? { directory: `${base}/${relative}` } : { directory: `${base}/${relative}`, scopes }])
}

/**
 * Defines skills: every skill folder below `folder` (`defineSkills('./skills')`),
 * or skills by path (`defineSkills({ 'git-workflow': { files: { 'SKILL.md': … } } })`).
 * Spread any number of results into a server module, beside tools, prompts and resources.
 */
export function defineSkills (folder: string, options?: SkillFolderOptions): DefinedSkills
export function defineSkills (skills: Record<string, SkillDefinition>): DefinedSkills
export function defineSkills (source: string | Record<string, SkillDefinition>, options: SkillFolderOptions = {}): DefinedSkills {
  const origin = callerOrigin('defineSkills', defineSkills)
  let definitions: Array<[string, SkillDefinition]>
  if (typeof source === 'string') definitions = folderSkills(source, options)
  else if (isPlainObject(source)) definitions = Object.entries(source as Record<string, SkillDefinition>)
  else throw new FST_MCP_INVALID_DEFINITION('skills', 'expected a folder of skill folders, or an object of skill definitions by path')
  // A nested skill's files are also its enclosing skill's: each file is read once.
  const shared = new Map<string, Buffer>()
  const entries: SkillEntry[] = []
  const check = new Catalog<SkillEntry>('skill')
  for (const [path, definition] of definitions) {
    const entry = compileSkillEntry(path, definition, origin, shared)
    check.add(entry)
    entries.push(entry)
  }
  checkSkillNesting(check)
  let own: DefinedSkills | undefined
  const handlers = (): DefinedSkills => (own ??= skillHandlers(check, {}, undefined) as DefinedSkills)
  const defined = {} as DefinedSkills
  Object.defineProperties(defined, {
    listSkills: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listSkills(params, ctx) },
    getSkill: { value: (params: GetSkillParams, ctx?: HandlerContext) => handlers().getSkill(params, ctx) },
    readResourceDirectory: { value: (params: ReadResourceDirectoryParams, ctx: HandlerContext) => handlers().readResourceDirectory(params, ctx) },
    listResources: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listResources(params, ctx) },
    readResource: { value: (params: ReadResourceParams, ctx: HandlerContext) => handlers().readResource(params, ctx) }
  })
  return attachGroup(defined, { kind: 'skills', entries, origin })
}

/** One skill, for a file of its own; collected by `defineSkills({ 'its/path': skill })`. */
export function defineSkill (skill: SkillDefinition): SkillDefinition {
  if (!isPlainObject(skill)) throw new FST_MCP_INVALID_DEFINITION('skill', 'expected an object { directory | files | frontmatter and content, scopes }')
  return skill
}
