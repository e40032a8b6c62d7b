/**
 * Where skills may sit in each other's folders. Any skill may nest in any
 * other, fixed or dynamic, except that a fixed skill may not list a file
 * inside a dynamic skill's folder: that folder's files are what the dynamic
 * skill's `content(ctx)` makes per request, yet the fixed file would be
 * served there (fixed files are served first, lib/definitions/skill-serving.ts),
 * under the fixed skill's digest, in the dynamic skill's place (its
 * `SKILL.md` with another frontmatter than its entry's). Checked when skills
 * are defined, composed and changed at runtime, over every skill, enabled or
 * not, so enabling one cannot make the overlap.
 */
import { FST_MCP_INVALID_SKILL } from '../errors.js'
import type { Catalog } from './catalog.js'
import type { SkillEntry } from './skill-entry.js'
import { nearestAbove } from './skill-files.js'

/**
 * Throws FST_MCP_INVALID_SKILL, naming both skills, when a fixed skill of
 * `catalog` lists a file inside a dynamic skill's folder; `changed`: a skill
 * about to be added or to replace the one of its name.
 */
export function checkSkillNesting (catalog: Catalog<SkillEntry>, changed?: SkillEntry): void {
  const entries = catalog.names().filter((name) => name !== changed?.name).map((name) => catalog.entry(name) as SkillEntry)
  if (changed !== undefined) entries.push(changed)
  const dynamicRoots = new Map(entries.filter((entry) => entry.files === undefined).map((entry) => [entry.root, entry]))
  if (dynamicRoots.size === 0) return
  for (const entry of entries) {
    if (entry.files === undefined) continue
    for (const file of entry.files.values()) {
      // Only the folders between the file and its skill's root (a dynamic skill enclosing the whole skill is fine).
      const dynamic = nearestAbove(file.uri, (folder) => folder.length > entry.root.length ? dynamicRoots.get(folder) : undefined)
      if (dynamic === undefined) continue
      throw new FST_MCP_INVALID_SKILL(entry.name, file.path,
        `the file lies in the folder of the dynamic skill "${dynamic.name}" (${dynamic.origin}), whose files its content(ctx) makes per request; ` +
        'a fixed skill may enclose a dynamic one but not hold files in its folder (leave them out, or make them in content(ctx))')
    }
  }
}
