/**
 * The package as a user gets it: `npm pack` (from a clean copy of the
 * repository, so the real `prepack` runs without touching this checkout's
 * dist/), then a new project installs the tarball with its peers from the
 * registry and uses it: ESM import of every entry in `exports`, register and
 * answer `initialize`; CommonJS `require()`; and `tsc --strict` with
 * `declaration: true` and `skipLibCheck: false`, with TypeScript 5.x and 7.x,
 * in an ES module project and a CommonJS one (`"type": "commonjs"`) under
 * `module: nodenext` and under `moduleResolution: bundler` (plus TypeScript
 * 5's `node10`, subpaths through `typesVersions`), on a consumer that exports
 * what the package's functions return (so every type a public signature
 * reaches must be nameable) and defines tools in both TypeBox lines, zod,
 * valibot and plain JSON Schema (handler types checked, then the compiled
 * tools run).
 *
 * Every entry of package.json `exports` is covered without editing this file;
 * peer dependencies (optional ones too, e.g. ioredis for `./redis`) are
 * installed at the versions this checkout uses, so the npm cache serves them.
 */
import t from 'tap'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, posix, relative } from 'node:path'
import { REPO_ROOT } from '../helpers/paths.js'
import { cleanCopy, installedVersion, run, show } from '../helpers/package-project.js'
import { optionalPeersOnlyTypesNeed, unexportedReachableTypes } from '../helpers/reachable-types.js'

const NAME = 'fastify-mcp-capabilities'
// npm pack, installs and seven compiles: minutes on an idle two-core machine, far more on a busy one
t.setTimeout(1_800_000)

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
/** Import specifiers of every code entry: '.', './client', ... (not './package.json'). */
const entries: string[] = Object.keys(pkg.exports)
  .filter((key) => !key.endsWith('.json'))
  .map((key) => key === '.' ? NAME : `${NAME}/${key.slice(2)}`)

const work = mkdtempSync(join(tmpdir(), 'fmc-pack-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

const copy = join(work, 'repo')
const app = join(work, 'app')
let tarball = ''
let packed: string[] = []

t.test('npm pack builds the package once, from a clean copy (prepack cleans, prepare builds)', async (t) => {
  cleanCopy(copy)
  // a leftover from an older build: prepack must not ship it
  mkdirSync(join(copy, 'dist', 'lib'), { recursive: true })
  writeFileSync(join(copy, 'dist', 'lib', 'stale-leftover.js'), 'export {}\n')

  const started = Date.now()
  const r = await run('npm', ['pack', '--json', '--pack-destination', work], copy)
  t.equal(r.code, 0, 'npm pack succeeds', { output: show(r) })
  if (r.code !== 0) return
  const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')))[0]
  tarball = join(work, report.filename)
  packed = report.files.map((f: { path: string }) => f.path)
  t.comment(`npm pack: ${packed.length} files, ${report.size} bytes packed, ${report.unpackedSize} unpacked, ${Date.now() - started} ms`)

  t.ok(existsSync(tarball), 'tarball written')
  t.notOk(packed.includes('dist/lib/stale-leftover.js'), 'prepack cleans dist/ before building')
  t.equal((r.stdout + r.stderr).match(/^> tsc -b /gm)?.length, 1, 'the build runs once', { output: show(r) })
  const allowed = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|docs\/.+\.md|dist\/lib\/.+|lib\/.+\.ts)$/
  t.strictSame(packed.filter((f) => !allowed.test(f)), [], 'nothing beyond package.json, README, CHANGELOG, LICENSE, the guide, dist/lib and lib sources')
  t.ok(packed.includes('CHANGELOG.md') && packed.includes('docs/connect-a-client.md'), 'the changelog and the guide ship')
  for (const [key, target] of Object.entries(pkg.exports as Record<string, string | Record<string, string>>)) {
    const targets = typeof target === 'string' ? [target] : Object.values(target)
    for (const file of targets) t.ok(packed.includes(posix.normalize(file)), `exports["${key}"] → ${file} is in the tarball`)
  }
})

t.test('a new project installs the tarball with its peers', async (t) => {
  if (tarball === '') return t.fail('no tarball')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }))
  const peers = Object.keys(pkg.peerDependencies ?? {}).map((name) => `${name}@${installedVersion(name)}`)
  const started = Date.now()
  const r = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error',
    tarball, ...peers, `@types/node@${installedVersion('@types/node')}`], app)
  t.equal(r.code, 0, `npm install ${peers.join(' ')} succeeds`, { output: show(r) })
  t.comment(`npm install: ${Date.now() - started} ms`)
})

const installed = join(app, 'node_modules', NAME)

t.test('every source map and declaration map points at a shipped file', async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  let maps = 0
  const missing: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) { walk(path); continue }
      if (entry.name.endsWith('.map')) {
        maps++
        const map = JSON.parse(readFileSync(path, 'utf8'))
        for (const source of map.sources as string[]) {
          const target = join(dirname(path), map.sourceRoot ?? '', source)
          if (!existsSync(target)) missing.push(`${relative(installed, path)} → ${source}`)
        }
      } else if (/\.(js|d\.ts)$/.test(entry.name)) {
        const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(path, 'utf8'))?.[1]
        if (url !== undefined && !existsSync(join(dirname(path), url))) missing.push(`${relative(installed, path)} → ${url}`)
      }
    }
  }
  walk(installed)
  t.ok(maps > 0, `${maps} maps checked`)
  t.strictSame(missing, [], 'no map points at a missing file')
})

t.test('every type a public declaration reaches is exported by an entry', async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  const typeFiles = Object.values(pkg.exports as Record<string, unknown>)
    .map((target) => typeof target === 'object' && target !== null ? (target as Record<string, string>).types : undefined)
    .filter((file): file is string => file !== undefined)
  t.strictSame(unexportedReachableTypes(installed, typeFiles), [], 'a consumer can name every type it is handed')
})

t.test('no entry\'s declarations need an optional peer its code does not load', async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  const optional = Object.entries((pkg.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>)
    .filter(([, meta]) => meta.optional === true).map(([name]) => name)
  for (const [key, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
    if (typeof target !== 'object' || target === null) continue
    const { types, default: code } = target as Record<string, string>
    if (types === undefined || code === undefined) continue
    t.strictSame(optionalPeersOnlyTypesNeed(installed, { types, code }, optional), [],
      `exports["${key}"]: its declarations need no optional peer (${optional.join(', ')}) its code does not load`)
  }
})

const INITIALIZE = {
  method: 'POST',
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pack-test', version: '1.0.0' } } }
}

t.test('ESM: every entry imports; the plugin registers and answers initialize', async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  writeFileSync(join(app, 'esm.mjs'), `
import Fastify from 'fastify'
const names = {}
for (const entry of ${JSON.stringify(entries)}) names[entry] = Object.keys(await import(entry)).sort()
const { default: mcpCapabilities } = await import('${NAME}')
const app = Fastify()
await app.register(mcpCapabilities, {
  server: { listTools () { return { tools: [] } }, callTool () { return { content: [] } } },
  serverInfo: { name: 'packed', version: '1.0.0' }
})
const reply = await app.inject(${JSON.stringify(INITIALIZE)})
console.log(JSON.stringify({ names, status: reply.statusCode, body: reply.json(), capabilities: app.mcp.capabilities }))
await app.close()
`)
  const r = await run(process.execPath, ['esm.mjs'], app)
  t.equal(r.code, 0, 'runs', { output: show(r) })
  if (r.code !== 0) return
  const out = JSON.parse(r.stdout)
  for (const entry of entries) t.ok(out.names[entry].length > 0, `${entry} has exports: ${out.names[entry].join(', ')}`)
  t.ok(out.names[NAME].includes('default') && out.names[NAME].includes('buildCapabilities'), 'the main entry exports the plugin and buildCapabilities')
  t.ok(out.names[`${NAME}/client`]?.includes('discover'), 'the client entry exports discover')
  t.equal(out.status, 200)
  t.equal(out.body.result.protocolVersion, '2025-11-25')
  t.equal(out.body.result.serverInfo.name, 'packed')
  t.strictSame(out.body.result.capabilities, out.capabilities.legacy, 'initialize advertises app.mcp.capabilities.legacy')
  t.ok(out.body.result.capabilities.tools, 'tools advertised')
})

/**
 * Node versions that load ES modules with `require()` without a flag (the
 * README says the same): 20.19.0+, 22.12.0+, 23.0.0 and later.
 */
function requireEsmByDefault (version: string): boolean {
  const [major = 0, minor = 0] = version.slice(1).split('.').map(Number)
  return major >= 23 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19)
}

t.test(`CommonJS: require() on Node ${process.version}`, async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  writeFileSync(join(app, 'cjs.cjs'), `
const out = { requireModule: process.features.require_module === true }
try {
  const pkg = require('${NAME}')
  const names = {}
  for (const entry of ${JSON.stringify(entries)}) names[entry] = Object.keys(require(entry)).sort()
  const app = require('fastify')()
  app.register(pkg.default, {
    server: { listTools () { return { tools: [] } }, callTool () { return { content: [] } } },
    serverInfo: { name: 'required', version: '1.0.0' }
  })
  app.inject(${JSON.stringify(INITIALIZE)}).then((reply) => {
    Object.assign(out, { names, sameFunction: pkg.default === pkg.mcpCapabilities, status: reply.statusCode, body: reply.json() })
    console.log(JSON.stringify(out))
    return app.close()
  })
} catch (error) {
  out.error = error.code
  console.log(JSON.stringify(out))
}
`)
  const r = await run(process.execPath, ['cjs.cjs'], app)
  t.equal(r.code, 0, 'runs', { output: show(r) })
  if (r.code !== 0) return
  const out = JSON.parse(r.stdout)
  const flagged = /require-module/.test(process.env.NODE_OPTIONS ?? '')
  if (!flagged) t.equal(out.requireModule, requireEsmByDefault(process.version), `process.features.require_module matches the documented versions (${process.version})`)
  if (out.requireModule === true) {
    t.equal(out.error, undefined, 'require() loads the package')
    for (const entry of entries) t.ok(out.names[entry].length > 0, `require('${entry}') has exports`)
    t.ok(out.sameFunction, 'require(...).default is the plugin (mcpCapabilities)')
    t.equal(out.status, 200)
    t.equal(out.body.result.serverInfo.name, 'required')
    t.notMatch(r.stderr, /ExperimentalWarning/, 'no experimental warning')
  } else {
    t.equal(out.error, 'ERR_REQUIRE_ESM', 'without require(esm), require() fails with ERR_REQUIRE_ESM (use import())')
  }
})

/** A consumer that re-exports what the package hands out, so declaration emit must name every type. */
function consumerSource (): string {
  return `import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { buildCapabilities } from '${NAME}'

const server = {
  listTools () { return { tools: [] } },
  callTool () { return { content: [] } },
  listPrompts () { return { prompts: [] } },
  getPrompt () { return { messages: [] } }
}

export const modern = buildCapabilities(server, { era: 'modern' })
export const legacy = buildCapabilities(server)
export const declared = buildCapabilities({ ...server, capabilities: { tools: { listChanged: false } } }, { era: 'modern' })

export async function start (): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: { name: 'consumer', version: '1.0.0' } })
  return app
}

export const mcpOf = (app: FastifyInstance) => app.mcp
export const capabilitiesOf = (app: FastifyInstance) => app.mcp.capabilities
export const modernToolsOf = (app: FastifyInstance) => app.mcp.capabilities.modern.tools
export const notify = (app: FastifyInstance): number => app.mcp.notifyToolsChanged()
`
}

/** For every entry: each exported function wrapped, so its inferred return type is emitted in our declarations. */
async function entriesSource (): Promise<string> {
  const r = await run(process.execPath, ['--input-type=module', '-e', `
const out = {}
for (const entry of ${JSON.stringify(entries)}) {
  const mod = await import(entry)
  out[entry] = Object.keys(mod).filter((k) => k !== 'default' && typeof mod[k] === 'function' && !/^class\\b/.test(Function.prototype.toString.call(mod[k])))
}
console.log(JSON.stringify(out))`], app)
  if (r.code !== 0) throw new Error(show(r))
  const functions: Record<string, string[]> = JSON.parse(r.stdout)
  const lines: string[] = []
  entries.forEach((entry, i) => {
    lines.push(`import * as e${i} from '${entry}'`)
    lines.push(`export const all${i} = { ...e${i} }`)
    // `./typebox` re-exports @sinclair/typebox, whose declarations are its own: wrapping its generic builders
    // (`Module`, ...) in `ReturnType<>` is TS2589 whatever the package does
    if (entry === `${NAME}/typebox`) return
    for (const name of functions[entry] ?? []) {
      // any arguments (a generic function's erased Parameters can be never); the return type is the one inferred for the call
      lines.push(`export const f${i}_${name} = (...args: any[]) => (e${i}.${name} as (...a: any[]) => ReturnType<typeof e${i}.${name}>)(...args)`)
    }
  })
  return lines.join('\n') + '\n'
}

/** What a project on TypeScript 5 with `module: commonjs` gets by default: `moduleResolution: node10` (gone in TypeScript 7). */
const NODE10 = { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true }

/**
 * TypeScript 7, what `npm install -D typescript` gives a new project, beside
 * this checkout's 5.x. Installed into its own folder for the test: as a
 * devDependency (an npm alias) its `tsc` would take the checkout's
 * `node_modules/.bin/tsc` from 5.x.
 */
const TYPESCRIPT_7 = 'typescript@^7'

/** Each project kind: its folder's package.json `type` and its compiler settings. */
const SETUPS: Record<string, { type: 'module' | 'commonjs', settings: Record<string, unknown> }> = {
  'ESM, module: nodenext': { type: 'module', settings: { module: 'nodenext', moduleResolution: 'nodenext' } },
  'CommonJS ("type": "commonjs"), module: nodenext': { type: 'commonjs', settings: { module: 'nodenext', moduleResolution: 'nodenext' } },
  'moduleResolution: bundler': { type: 'module', settings: { module: 'esnext', moduleResolution: 'bundler' } }
}

/** The schema libraries the consumer uses beside the package: both TypeBox lines, zod 4, valibot. */
const SCHEMA_LIBRARIES = ['typebox', 'zod', 'valibot', '@valibot/to-json-schema']

/**
 * Tools and a prompt in every schema library, handler arguments and results
 * checked against the types a user expects (a wrong one fails to compile),
 * and a `main()` that serves them and calls each tool.
 */
function schemaSource (): string {
  return `import Fastify from 'fastify'
import { Type as LegacyType } from '@sinclair/typebox'
import { Type, type Static } from 'typebox'
import { z } from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import mcpCapabilities, { definePrompts, defineTools } from '${NAME}'
import { injectClient } from '${NAME}/testing'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
function same<A, B> (_proof: Equal<A, B>): void {}

// declared \`as const\` so TypeScript 5 keeps its literal types (TypeScript 7 also types it written inline)
const Query = { type: 'object', properties: { q: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['q'] } as const

const Labels = Type.Object({ labels: Type.Array(Type.String()), limit: Type.Optional(Type.Integer({ default: 10 })) })

export const tools = defineTools({
  legacy: {
    input: LegacyType.Object({ values: LegacyType.Array(LegacyType.Number()) }),
    output: LegacyType.Object({ sum: LegacyType.Number() }),
    handler: (args) => {
      same<typeof args, { values: number[] }>(true)
      return { sum: args.values.reduce((a, b) => a + b, 0) }
    }
  },
  modern: {
    input: Labels,
    output: Type.Object({ count: Type.Integer() }),
    handler: (args) => {
      same<typeof args, Static<typeof Labels>>(true)
      return { count: args.labels.length + (args.limit ?? 0) }
    }
  },
  zod: {
    input: z.object({ words: z.array(z.string()), upper: z.boolean().default(false) }),
    output: z.object({ text: z.string() }),
    handler: (args) => {
      same<typeof args, { words: string[], upper: boolean }>(true)
      const text = args.words.join(' ')
      return { text: args.upper ? text.toUpperCase() : text }
    }
  },
  valibot: {
    input: toStandardJsonSchema(v.object({ n: v.number() })),
    handler: (args) => {
      same<typeof args, { n: number }>(true)
      return { content: [{ type: 'text', text: String(args.n * 2) }] }
    }
  },
  plain: {
    input: Query,
    handler: (args) => {
      same<typeof args, { q: string, tags?: string[] }>(true)
      return { content: [{ type: 'text', text: args.q }] }
    }
  }
})

export const prompts = definePrompts({
  brief: {
    arguments: z.object({ topic: z.string() }),
    handler: ({ topic }) => \`Write about \${topic}\`
  }
})

export async function main (): Promise<unknown[]> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: { ...tools, ...prompts }, serverInfo: { name: 'consumer', version: '1.0.0' } })
  const client = injectClient(app)
  const out = [
    (await client.callTool('legacy', { values: [1, 2, 3] })).structuredContent,
    (await client.callTool('modern', { labels: ['a', 'b'] })).structuredContent,
    (await client.callTool('zod', { words: ['hi', 'there'] })).structuredContent,
    (await client.callTool('valibot', { n: 21 })).content,
    (await client.callTool('plain', { q: 'x' })).content,
    (await client.callTool('plain', {})).isError
  ]
  await app.close()
  return out
}
`
}

const EXPECTED_RUN = [{ sum: 6 }, { count: 12 }, { text: 'hi there' }, [{ type: 'text', text: '42' }], [{ type: 'text', text: 'x' }], true]

function writeConfig (dir: string, name: string, settings: Record<string, unknown>, outDir: string): void {
  writeFileSync(join(dir, name), JSON.stringify({
    compilerOptions: {
      ...settings,
      target: 'es2022',
      strict: true,
      declaration: true,
      skipLibCheck: false,
      types: ['node'],
      // TypeScript 7 wants it said (TS5011) when the sources sit in a folder
      rootDir: 'src',
      outDir
    },
    include: ['src']
  }))
}

t.test('tsc --strict, declaration: true, skipLibCheck: false: every project kind, TypeScript 5 and 7, every schema library', async (t) => {
  if (!existsSync(installed)) return t.fail('not installed')
  const libraries = SCHEMA_LIBRARIES.map((name) => `${name}@${installedVersion(name)}`)
  const added = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...libraries], app)
  t.equal(added.code, 0, `npm install ${libraries.join(' ')}`, { output: show(added) })
  const ts7 = join(work, 'typescript-7')
  mkdirSync(ts7)
  writeFileSync(join(ts7, 'package.json'), JSON.stringify({ name: 'typescript-7', private: true }))
  const compiler = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', TYPESCRIPT_7], ts7)
  t.equal(compiler.code, 0, `npm install ${TYPESCRIPT_7}`, { output: show(compiler) })
  if (added.code !== 0 || compiler.code !== 0) return
  const TYPESCRIPTS: Record<string, string> = {
    [`TypeScript ${installedVersion('typescript')}`]: join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    [`TypeScript ${JSON.parse(readFileSync(join(ts7, 'node_modules', 'typescript', 'package.json'), 'utf8')).version}`]: join(ts7, 'node_modules', 'typescript', 'bin', 'tsc')
  }
  const shared = { 'consumer.ts': consumerSource(), 'entries.ts': await entriesSource(), 'schema.ts': schemaSource() }
  const folders: Record<string, string> = {}
  for (const kind of ['module', 'commonjs'] as const) {
    const dir = join(app, kind === 'module' ? 'esm' : 'cjs')
    mkdirSync(join(dir, 'src'), { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${kind}`, private: true, type: kind }))
    for (const [file, source] of Object.entries(shared)) writeFileSync(join(dir, 'src', file), source)
    writeFileSync(join(dir, 'src', 'run.ts'), "import { main } from './schema.js'\nmain().then((out) => console.log(JSON.stringify(out)), (err) => { console.error(err); process.exitCode = 1 })\n")
    folders[kind] = dir
  }
  const started = Date.now()
  const jobs: Array<{ label: string, tsc: string, dir: string, config: string, out: string, runs: boolean }> = []
  Object.entries(TYPESCRIPTS).forEach(([compiler, tsc], c) => {
    Object.entries(SETUPS).forEach(([setup, { type, settings }], s) => {
      const dir = folders[type] as string
      const out = `out-${c}-${s}`
      writeConfig(dir, `tsconfig.${c}-${s}.json`, settings, out)
      jobs.push({ label: `${compiler}, ${setup}`, tsc, dir, config: `tsconfig.${c}-${s}.json`, out, runs: setup !== 'moduleResolution: bundler' })
    })
  })
  // TypeScript 5's CommonJS default; the subpaths resolve through `typesVersions` (the schema consumer needs exports-aware resolution)
  const legacyDir = join(app, 'node10')
  mkdirSync(join(legacyDir, 'src'), { recursive: true })
  writeFileSync(join(legacyDir, 'package.json'), JSON.stringify({ name: 'consumer-node10', private: true, type: 'commonjs' }))
  writeFileSync(join(legacyDir, 'src', 'consumer.ts'), shared['consumer.ts'])
  writeFileSync(join(legacyDir, 'src', 'entries.ts'), shared['entries.ts'])
  writeConfig(legacyDir, 'tsconfig.json', NODE10, 'out')
  jobs.push({ label: `${Object.keys(TYPESCRIPTS)[0]}, module: commonjs, moduleResolution: node10`, tsc: TYPESCRIPTS[Object.keys(TYPESCRIPTS)[0] as string] as string, dir: legacyDir, config: 'tsconfig.json', out: 'out', runs: false })

  // two at a time: the machine has at least two cores
  const queue = [...jobs]
  await Promise.all([0, 1].map(async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const r = await run(process.execPath, [job.tsc, '-p', job.config], job.dir, true)
      t.equal(r.code, 0, `${job.label}: no error`, { output: show(r) })
      const emitted = join(job.dir, job.out, 'consumer.d.ts')
      t.ok(existsSync(emitted) && statSync(emitted).size > 0, `${job.label}: declarations emitted`)
      if (!job.runs || r.code !== 0) continue
      const ran = await run(process.execPath, [join(job.out, 'run.js')], job.dir, true)
      t.equal(ran.code, 0, `${job.label}: the compiled tools run`, { output: show(ran) })
      if (ran.code === 0) t.strictSame(JSON.parse(ran.stdout), EXPECTED_RUN, `${job.label}: each library validated and answered`)
    }
  }))
  t.comment(`tsc (${jobs.length} settings): ${Date.now() - started} ms`)
})
