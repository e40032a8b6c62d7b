/**
 * Finds the named types a package's public declarations reach that no entry
 * exports: a consumer emitting declarations cannot name them (TS2742 /
 * TS4023) once an inferred type expands to one. Reads the built `.d.ts` of
 * every `exports` entry with the TypeScript compiler API.
 *
 * Flagged: interfaces, classes, enums and non-generic type aliases declared
 * inside the package. Generic helper aliases (mapped or conditional types)
 * are walked through but not flagged: the compiler expands them when it
 * prints an inferred type.
 */
import ts from 'typescript'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'

export function unexportedReachableTypes (packageDir: string, entryTypeFiles: string[]): string[] {
  const program = ts.createProgram(entryTypeFiles.map((f) => join(packageDir, f)), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node']
  })
  const checker = program.getTypeChecker()
  const inPackage = (node: ts.Node): boolean => {
    const file = node.getSourceFile().fileName
    return file.startsWith(packageDir + sep) && !file.slice(packageDir.length).includes(`${sep}node_modules${sep}`)
  }
  const resolve = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol

  // Everything an entry exports, namespace re-exports (`export * as errors`) included.
  const exported = new Set<ts.Symbol>()
  const addModule = (moduleSymbol: ts.Symbol): void => {
    for (const member of checker.getExportsOfModule(moduleSymbol)) {
      const target = resolve(member)
      if (exported.has(target)) continue
      exported.add(target)
      if ((target.flags & ts.SymbolFlags.ValueModule) !== 0) addModule(target)
    }
  }
  for (const file of entryTypeFiles) {
    const source = program.getSourceFile(join(packageDir, file))
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source)
    if (moduleSymbol === undefined) throw new Error(`cannot read ${file}`)
    addModule(moduleSymbol)
  }

  const problems = new Map<string, string>()
  const walked = new Set<ts.Node>()
  const queue: Array<{ node: ts.Node, from: string }> = []
  for (const symbol of exported) {
    for (const declaration of symbol.declarations ?? []) if (inPackage(declaration)) queue.push({ node: declaration, from: symbol.name })
  }

  const isHidden = (node: ts.Node): boolean =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)

  const visitReference = (name: ts.Node, from: string): void => {
    const found = checker.getSymbolAtLocation(name)
    if (found === undefined) return
    const symbol = resolve(found)
    if ((symbol.flags & ts.SymbolFlags.TypeParameter) !== 0) return
    // declared elsewhere too (a module augmentation such as fastify's FastifyInstance): that module names it
    const foreign = (symbol.declarations ?? []).some((declaration) => !inPackage(declaration))
    for (const declaration of symbol.declarations ?? []) {
      if (!inPackage(declaration)) continue
      const generic = ts.isTypeAliasDeclaration(declaration) && (declaration.typeParameters?.length ?? 0) > 0
      const named = ts.isInterfaceDeclaration(declaration) || ts.isClassDeclaration(declaration) || ts.isEnumDeclaration(declaration) ||
        (ts.isTypeAliasDeclaration(declaration) && !generic)
      if (named && !foreign && !exported.has(symbol)) {
        problems.set(symbol.name, `${symbol.name} (${relative(packageDir, declaration.getSourceFile().fileName)}), reached from ${from}`)
      }
      queue.push({ node: declaration, from })
    }
  }

  const visit = (node: ts.Node, from: string): void => {
    if (isHidden(node)) return
    if (ts.isTypeReferenceNode(node)) visitReference(node.typeName, from)
    else if (ts.isExpressionWithTypeArguments(node)) visitReference(node.expression, from)
    ts.forEachChild(node, (child) => visit(child, from))
  }

  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (walked.has(next.node)) continue
    walked.add(next.node)
    visit(next.node, next.from)
  }
  return [...problems.values()].sort()
}

/** The packages a module file and the files it imports (relative specifiers) load, followed from `entry`. */
function packagesReached (entry: string, withTypeQueries: boolean): Set<string> {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const queue = [entry]
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file) || !existsSync(file)) continue
    seen.add(file)
    for (const specifier of specifiersOf(file, withTypeQueries)) {
      if (specifier.startsWith('node:')) continue
      if (specifier.startsWith('.')) {
        const target = join(dirname(file), specifier)
        // declarations import './x.js' and mean './x.d.ts'
        queue.push(file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target)
      } else {
        const parts = specifier.split('/')
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] ?? specifier)
      }
    }
  }
  return packages
}

/**
 * The specifiers of a file's `import ... from 'x'`, `export ... from 'x'` and `import 'x'`, read with the
 * TypeScript parser (the bundle is minified: several statements share a line); with `withTypeQueries`, also
 * the `import('x')` type queries of a declaration file. A dynamic `import()` of code loads nothing up front.
 */
function specifiersOf (file: string, withTypeQueries: boolean): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const specifiers: string[] = []
  for (const statement of source.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text)
    }
  }
  if (withTypeQueries) {
    const visit = (node: ts.Node): void => {
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        specifiers.push(node.argument.literal.text)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return specifiers
}

/**
 * Optional peers an entry's declarations need although its code does not load
 * them (statically): a consumer of that entry without the peer installed gets
 * TS2307 under `skipLibCheck: false`.
 */
export function optionalPeersOnlyTypesNeed (packageDir: string, entry: { types: string, code: string }, optionalPeers: readonly string[]): string[] {
  const typed = packagesReached(join(packageDir, entry.types), true)
  const loaded = packagesReached(join(packageDir, entry.code), false)
  return optionalPeers.filter((peer) => typed.has(peer) && !loaded.has(peer))
}
