/**
 * Type-level tests for defineSkills: both forms (a folder, skills by path),
 * a dynamic skill's content typed, the group a valid server module, and
 * fastify.mcp.skills typed like the other runtime handles.
 * Checked by `npm run typecheck` (tsc), never run.
 */
import { expectTypeOf } from 'expect-type'
import type { FastifyInstance } from 'fastify'
import type { LiveSkills } from '../../lib/definitions/live.js'
import { defineSkill, defineSkills } from '../../lib/definitions/skills.js'
import type { ListSkillsResult } from '../../lib/protocol/schemas.js'
import type { HandlerContext, ServerModule } from '../../lib/server-module/contract.js'
import '../../lib/endpoint/mcp-decorator.js'

const fromFolder = defineSkills('./skills', { prefix: 'team', scopes: ['skills:read'] })
const byPath = defineSkills({
  'git-workflow': { files: { 'SKILL.md': '---\nname: git-workflow\ndescription: d\n---\n', 'logo.png': new Uint8Array(4) } },
  'reports/daily': defineSkill({
    frontmatter: { name: 'daily', description: 'd', metadata: { owner: 'ops' } },
    content: async (ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<HandlerContext>()
      return { instructions: '# Daily', files: { 'data.csv': 'a,b' } }
    }
  })
})
const module = { ...fromFolder, ...byPath } satisfies ServerModule
expectTypeOf(module.listSkills()).toEqualTypeOf<ListSkillsResult | Promise<ListSkillsResult>>()

// @ts-expect-error a dynamic skill's content returns its instructions
defineSkill({ frontmatter: { name: 'x', description: 'd' }, content: () => ({ files: {} }) })
// @ts-expect-error a file is text or bytes
defineSkills({ x: { files: { 'SKILL.md': 42 } } })
// @ts-expect-error the folder form takes options, not skills
defineSkills('./skills', { 'git-workflow': {} })

declare const app: FastifyInstance
expectTypeOf(app.mcp.skills).toEqualTypeOf<LiveSkills>()
app.mcp.skills.add('notes', { directory: './skills/notes' })
