#!/usr/bin/env node
/**
 * The second half of `npm run build` (after `tsc -b tsconfig.build.json`,
 * which writes only the declaration files): the runtime JavaScript as one
 * esbuild bundle per public entry point, for cold start. Loading ~180 small
 * modules one by one (resolve, stat, read, link each) cost more than
 * evaluating them (bench/cold-start.ts, docs/performance.md); a bundle is
 * read in a few files.
 *
 * - Every entry of package.json `exports` keeps its path (dist/lib/index.js,
 *   dist/lib/client/index.js, ...), beside its declaration file.
 * - Code splitting: what two entries share sits once in dist/lib/chunks/, so
 *   a class or symbol imported through `.` and `./testing` is the same one;
 *   a dynamic `import()` stays a lazy chunk there too. What the main entry
 *   loads is one chunk beside TypeBox's (see `groupedWithMain` below).
 * - Every npm dependency stays external (resolved from the user's
 *   node_modules, peers included), Node's built-ins too, except TypeBox 0.34
 *   (`@sinclair/typebox` and its subpaths): its ~200 ES modules took ~80 ms
 *   to load on every start, bundled they take a few (bench/cold-start.ts).
 *   lib/typebox/ is the only place lib/ takes its runtime from, and the
 *   `./typebox` entry hands that same copy to users (docs/getting-started.md).
 * - Source maps point at the shipped lib/*.ts (and the bundled TypeBox's at
 *   the peer `@sinclair/typebox` installed beside the package).
 * - Whitespace and syntax are minified, identifiers are not (see the options below).
 * - The output is ASCII only (checked below).
 */
import { build } from 'esbuild'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, posix, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dropRedundantNames } from './redundant-names.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'dist', 'lib')

/** lib/<entry>.ts for every code entry of package.json `exports` ('./package.json' is none). */
function entryPoints () {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  return Object.values(pkg.exports)
    .map((target) => typeof target === 'string' ? target : target.default)
    .filter((target) => target.endsWith('.js'))
    .map((target) => {
      const source = posix.normalize(target).replace(/^dist\//, '').replace(/\.js$/, '.ts')
      if (!source.startsWith('lib/')) throw new Error(`build: export target ${target} is not under dist/lib/`)
      return join(ROOT, source)
    })
}

/** JavaScript (and its maps) a previous build left, per-file tsc output included: the bundle replaces all of it. */
function removeOldJavaScript (dir) {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) removeOldJavaScript(path)
    else if (entry.name.endsWith('.js') || entry.name.endsWith('.js.map')) rmSync(path)
  }
}

/** TypeBox 0.34, which the bundle carries; any other bare specifier stays an import. */
const BUNDLED = /^@sinclair\/typebox(\/|$)/

/** `packages: 'external'` with one exception (esbuild has no option for that). */
const externalPackagesButTypeBox = {
  name: 'external-packages-but-typebox',
  setup (build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => BUNDLED.test(args.path) ? undefined : { path: args.path, external: true })
  }
}

/** The main entry, which every deployment of the plugin imports. */
const MAIN = join(ROOT, 'lib', 'index.ts')
/**
 * Entries only ever used beside the main one (its Redis parts, its test helpers). `./client` stands alone;
 * `./typebox` may be imported without the plugin (schemas shared with other code), and leaving it out
 * costs two files more at import (TypeBox's chunk, esbuild's helpers), no time measured (bench/cold-phases.ts).
 */
const STANDALONE = ['client', 'typebox'].map((dir) => join(ROOT, 'lib', dir) + sep)
const BESIDE_MAIN = new Set(entryPoints().filter((entry) => entry !== MAIN && !STANDALONE.some((dir) => entry.startsWith(dir))))

/**
 * esbuild's code splitting puts each module in the chunk of the set of entries
 * (dynamic `import()` targets included) that reach it, so a main entry whose
 * modules are shared in many different ways was read as 14 small and large
 * files, each one resolved, read, compiled and linked on its own (about half
 * a millisecond each, bench/cold-phases.ts). Here every entry used beside the
 * main one, and every lazy chunk of lib/, also imports the main entry: the
 * main entry's whole module graph is then reached by the same set and sits
 * in one chunk (TypeBox, which `./typebox` reaches too, in a second one),
 * a lazy chunk holds only what the main entry does not load,
 * and making a part lazy no longer scatters what it shares into new chunks.
 * The added import only orders evaluation: the main entry's modules are
 * already loaded wherever those entries and chunks are used.
 */
const groupedWithMain = {
  name: 'grouped-with-main',
  setup (build) {
    const importMain = `\nimport ${JSON.stringify(MAIN)}\n`
    build.onLoad({ filter: /\.ts$/ }, (args) => BESIDE_MAIN.has(args.path)
      ? { contents: readFileSync(args.path, 'utf8') + importMain, loader: 'ts' }
      : undefined)
    build.onResolve({ filter: /^\./ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'grouped') return undefined
      const target = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'grouped' })
      if (target.errors.length > 0 || !target.path.startsWith(join(ROOT, 'lib') + sep)) return target.errors.length > 0 ? { errors: target.errors } : undefined
      return { path: target.path, namespace: 'grouped-lazy' }
    })
    build.onLoad({ filter: /.*/, namespace: 'grouped-lazy' }, (args) => ({
      contents: `export * from ${JSON.stringify(args.path)}${importMain}`,
      resolveDir: dirname(args.path),
      loader: 'js'
    }))
  }
}

/**
 * Node's built-in modules (`node:crypto`, `node:fs`, ...) as `process.getBuiltinModule` hands them over,
 * instead of through `import`. The first `import` of a built-in in a process makes Node build its ES module
 * facade, which reads every export of the module, lazy ones included: `node:crypto`'s `webcrypto` loads
 * WebCrypto, `node:fs`'s `promises` and streams load theirs, `node:net` its BlockList. With Fastify already
 * loaded (it takes them with `require`, which reads nothing), the package's built-ins cost ~3 ms of every cold
 * start that way (docs/performance.md "Built-in modules without their ES facade"). Each built-in becomes a
 * module of the bundle that exports the names lib/ imports from it (the others are dropped: each export is a
 * pure read), so lib/ keeps its plain `import { createHash } from 'node:crypto'`.
 * test/package/commonjs-dependencies.test.ts checks the bundle imports none.
 */
const RUNTIME = join(ROOT, 'lib', 'common', 'builtin-module.ts')
const builtinsWithoutFacade = {
  name: 'builtins-without-facade',
  setup (build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-builtin' }))
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const names = Object.keys(process.getBuiltinModule(args.path)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
      const id = JSON.stringify(args.path)
      return {
        contents: [
          `import { builtinModule } from ${JSON.stringify(RUNTIME)}`,
          `const builtin = builtinModule(${id})`,
          'export default builtin',
          ...names.map((name) => `export const ${name} = /* @__PURE__ */ Reflect.get(builtin, ${JSON.stringify(name)})`)
        ].join('\n'),
        resolveDir: ROOT,
        loader: 'js'
      }
    })
  }
}

removeOldJavaScript(OUT)
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: entryPoints(),
  outbase: join(ROOT, 'lib'),
  outdir: OUT,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [groupedWithMain, builtinsWithoutFacade, externalPackagesButTypeBox],
  sourcemap: 'linked',
  // lib/ ships beside dist/: the maps name those files instead of copying them
  sourcesContent: false,
  // error classes, handlers and plugins keep the names they have in lib/
  keepNames: true,
  // Less text for V8 to scan and pre-parse on every start (6 million fewer main-thread instructions importing the
  // package, docs/performance.md "Minified text, names kept"); identifiers stay as in lib/, so stack traces name
  // lib/'s functions, and lines stay short, so a position in a trace is findable without the source map
  minifyWhitespace: true,
  minifySyntax: true,
  lineLimit: 120,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true
})
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'))
// a map names the bundled TypeBox modules by their path in node_modules/@sinclair/typebox/ (wherever that
// node_modules really is: esbuild follows symbolic links): installed, the package
// has no node_modules of its own, and the peer `@sinclair/typebox` sits beside it (npm's flat tree and pnpm's
// store alike), so the maps point there (the same 0.34 build, lines exact when the versions match)
for (const [file] of Object.entries(result.metafile.outputs).filter(([name]) => name.endsWith('.js.map'))) {
  const path = join(ROOT, file)
  const map = JSON.parse(readFileSync(path, 'utf8'))
  const beside = relative(dirname(path), join(ROOT, '..')).split(sep).join('/')
  let changed = false
  map.sources = map.sources.map((source) => {
    // a built-in's module (builtinsWithoutFacade) is made by this script: its few lines are named after the file they call
    if (source.startsWith('node-builtin:')) {
      changed = true
      return relative(dirname(path), RUNTIME).split(sep).join('/')
    }
    const at = source.lastIndexOf('node_modules/@sinclair/typebox/')
    if (at === -1) return source
    changed = true
    return `${beside}/${source.slice(at + 'node_modules/'.length)}`
  })
  if (changed) writeFileSync(path, JSON.stringify(map))
}
for (const [file] of outputs) {
  const path = join(ROOT, file)
  const source = readFileSync(path, 'utf8')
  // keepNames' `__name` calls that restate a name the value has anyway (scripts/redundant-names.mjs)
  const kept = dropRedundantNames(source)
  if (kept !== source) writeFileSync(path, kept)
  // esbuild escapes non-ASCII text in strings but not everywhere (a regular expression literal keeps it); one
  // such character makes Node decode the whole file to a two-byte string and V8 scan it so, on every start
  const lines = kept.split('\n')
  const line = lines.findIndex((text) => /[^\x00-\x7F]/.test(text))
  if (line !== -1) throw new Error(`build: ${file}:${line + 1} holds a non-ASCII character; write it as an escape in lib/: ${lines[line]?.slice(0, 160)}`)
}
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0)
console.log(`esbuild: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KB in ${relative(ROOT, OUT)}/ (${outputs.map(([file]) => relative(OUT, join(ROOT, file))).join(', ')})`)
