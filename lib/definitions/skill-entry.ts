/**
 * What a skill is once defined: its definition (`SkillDefinition`), its
 * fixed files with their digests (`SkillFile`), and the catalogue entry the
 * handlers serve (`SkillEntry`). Made by skills.ts, served by skill-serving.ts.
 */
import type { HandlerContext } from '../server-module/contract.js'
import type { CatalogEntry } from './catalog.js'
import type { SkillFrontmatter } from './skill-frontmatter.js'

/** A file's content: text (served as UTF-8) or bytes. */
export type SkillFileContent = string | Uint8Array

/** What a dynamic skill's `content` makes for one request. */
export interface DynamicSkillContent {
  /** The body of `SKILL.md`, after the frontmatter (which the definition fixes). */
  instructions: string
  /** Further files by relative path (`references/today.md`). */
  files?: Record<string, SkillFileContent>
}

/** One skill: exactly one of `directory`, `files` or `content`. */
export interface SkillDefinition {
  /** A folder holding `SKILL.md` and the skill's other files, read once when defined. */
  directory?: string
  /** The files by relative path, `SKILL.md` among them. */
  files?: Record<string, SkillFileContent>
  /** Dynamic skills: the frontmatter (`name` and `description` at least). */
  frontmatter?: SkillFrontmatter
  /** Dynamic skills: the content, made per request (its digests cannot be published: `resources: "dynamic"`). */
  content?: (ctx: HandlerContext) => DynamicSkillContent | Promise<DynamicSkillContent>
  /** Scopes a caller needs to get the skill and read its files, beyond the endpoint's. */
  scopes?: string[]
}

/** One file of a skill whose content is fixed, with what its manifest entry says of it. */
export interface SkillFile {
  readonly uri: string
  /** Relative to the skill's root, "/"-separated. */
  readonly path: string
  readonly bytes: Buffer
  readonly size: number
  readonly digest: string
  readonly mimeType: string
}

/** A compiled skill as the catalogue keeps it: named by its path, keyed by its `SKILL.md` URI. */
export interface SkillEntry extends CatalogEntry {
  /** The skill's path (`acme/billing/refunds`): what `fastify.mcp.skills` names it by. */
  readonly name: string
  /** The URI of its `SKILL.md`. */
  readonly key: string
  /** The URI of its root folder (no trailing "/"). */
  readonly root: string
  readonly scopes: readonly string[] | undefined
  /** Fixed files by relative path; undefined for a dynamic skill. */
  readonly files: ReadonlyMap<string, SkillFile> | undefined
  /** A dynamic skill's frontmatter and content. */
  readonly dynamic: { readonly frontmatter: SkillFrontmatter, readonly content: NonNullable<SkillDefinition['content']> } | undefined
  /** The `skills/get` result, frozen, its JSON preset. */
  readonly getResult: object
}
