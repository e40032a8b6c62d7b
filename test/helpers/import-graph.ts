/**
 * The import graph of lib/, read with the TypeScript compiler's own parser:
 * every `import`, `import type`, `export ... from` and `import()` with a
 * relative specifier, type-only ones included (they tie modules together too).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/** Every .ts file under `dir`, as paths relative to `root` with forward slashes. */
export function sourceFiles (root: string, dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`
    if (statSync(join(root, rel)).isDirectory()) out.push(...sourceFiles(root, rel))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel)
  }
  return out.sort()
}

function specifiers (file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments
      if (arg !== undefined && ts.isStringLiteralLike(arg)) found.push(arg.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** file → the files of the same tree it imports (relative specifiers only). */
export function importGraph (root: string, dir: string): Map<string, string[]> {
  const files = sourceFiles(root, dir)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const targets: string[] = []
    for (const spec of specifiers(file, readFileSync(join(root, file), 'utf8'))) {
      if (!spec.startsWith('.')) continue
      const target = relative(root, resolve(root, dirname(file), spec)).split(sep).join('/').replace(/\.js$/, '.ts')
      if (known.has(target)) targets.push(target)
      else if (known.has(target + '/index.ts')) targets.push(target + '/index.ts')
    }
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** Strongly connected components with more than one node, or a node importing itself (Tarjan). */
export function cycles (graph: Map<string, string[]>): string[][] {
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const strongConnect = (v: string): void => {
    indices.set(v, index)
    low.set(v, index)
    index++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!))
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!indices.has(v)) strongConnect(v)
  return found
}

/**
 * The same graph between concerns: each folder directly under `dir` is one
 * node, each file at `dir`'s root is a node of its own.
 */
export function concernGraph (graph: Map<string, string[]>, dir: string): Map<string, string[]> {
  const concern = (file: string): string => {
    const rest = file.slice(dir.length + 1)
    const slash = rest.indexOf('/')
    return slash === -1 ? rest : rest.slice(0, slash) + '/'
  }
  const out = new Map<string, Set<string>>()
  for (const [file, targets] of graph) {
    const from = concern(file)
    const set = out.get(from) ?? new Set<string>()
    out.set(from, set)
    for (const target of targets) {
      const to = concern(target)
      if (to !== from) set.add(to)
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]))
}
