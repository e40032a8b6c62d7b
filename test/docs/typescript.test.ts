/**
 * Every TypeScript block of the documentation compiles under `strict`: each
 * ```ts block of README.md, CHANGELOG.md and docs/**\/*.md is type-checked as
 * its own module (top-level await allowed), with the package's import names
 * mapped to the sources in lib/ through the `exports` map, so a user copying
 * a block gets no type error. A block must be complete: its own imports, and
 * a declaration for anything it leaves to the reader
 * (`declare function longJob (...): Promise<void>`).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { REPO_ROOT } from '../helpers/paths.js'
import { allBlocks, type Block, isTypeScript } from './markdown.js'

const NAME = 'fastify-mcp-capabilities'

/** `fastify-mcp-capabilities[/entry]` → the lib/ source behind that entry's types. */
function pathMapping (): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  const paths: Record<string, string[]> = {}
  for (const [key, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
    const types = typeof target === 'object' && target !== null ? (target as Record<string, string>).types : undefined
    if (types === undefined) continue
    const source = types.replace(/^\.\/dist\/lib\//, 'lib/').replace(/\.d\.ts$/, '.ts')
    paths[key === '.' ? NAME : `${NAME}/${key.slice(2)}`] = [join(REPO_ROOT, source)]
  }
  return paths
}

const blocks = allBlocks().filter(isTypeScript)
// Virtual files beside each Markdown file: ESM (package.json "type": "module"), and 'fastify' resolves from node_modules.
const fileOf = (block: Block): string => join(REPO_ROOT, `${block.file.replace(/\.md$/, '')}.block-${block.line}.ts`)
const virtual = new Map(blocks.map((block) => [fileOf(block), block.code]))

const options: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  skipLibCheck: true,
  noEmit: true,
  paths: pathMapping()
}

const host = ts.createCompilerHost(options)
const { fileExists, readFile, getSourceFile } = host
host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file)
host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file)
host.getSourceFile = (file, language, onError, create) => {
  const code = virtual.get(file)
  return code === undefined ? getSourceFile.call(host, file, language, onError, create) : ts.createSourceFile(file, code, language)
}

t.ok(blocks.filter((block) => block.file === 'README.md').length >= 1, 'README.md has TypeScript blocks')
t.ok(blocks.some((block) => block.file.startsWith('docs/')), 'docs/ has TypeScript blocks')

const program = ts.createProgram([...virtual.keys()], options, host)
const global = ts.getPreEmitDiagnostics(program).filter((d) => d.file === undefined)
t.strictSame(global.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), [], 'the compiler options are valid')

for (const block of blocks) {
  const file = program.getSourceFile(fileOf(block))
  const problems = file === undefined
    ? ['not part of the program']
    : [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => {
        const { line, character } = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 }
        return `${block.file}:${block.line + line}:${character + 1} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`
      })
  t.strictSame(problems, [], `${block.file} line ${block.line}: the block compiles under strict`)
}
