/**
 * The package's public surface: the plugin is the default export and the
 * named `mcpCapabilities`; `buildCapabilities` is a named export; `./typebox`
 * is TypeBox 0.34 (the built one: test/package/typebox-bundled.test.ts). Checked on
 * the sources and, when built, on `dist/` through the package's own name
 * (which goes through the `exports` map).
 */
import t, { type Test } from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './helpers/paths.js'

type Entry = Record<string, any>

function checkEntry (t: Test, entry: Entry): void {
  t.type(entry.default, 'function', 'default export is a function')
  t.equal(entry.default, entry.mcpCapabilities, 'default export === mcpCapabilities')
  const meta = entry.mcpCapabilities[Symbol.for('plugin-meta')]
  t.equal(meta?.name, 'fastify-mcp-capabilities', 'fastify-plugin name')
  t.equal(meta?.fastify, undefined, 'no semver range for Fastify to match: the plugin checks Fastify 5 itself (FST_MCP_FASTIFY_VERSION)')
  t.equal(entry.mcpCapabilities[Symbol.for('skip-override')], true, 'wrapped with fastify-plugin')
  t.type(entry.buildCapabilities, 'function', 'buildCapabilities is a named export')
  t.same(entry.buildCapabilities({ listTools () {}, callTool () {} }, { era: 'modern' }), { tools: { listChanged: true }, logging: {} },
    'buildCapabilities works from this entry')
  t.type(entry.parseDiscoverResult, 'function', 'parseDiscoverResult is a named export')
  t.same(entry.parseDiscoverResult({ supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: -1 }),
    { ok: true, result: { supportedVersions: ['2026-07-28'], capabilities: {}, instructions: null, ttlMs: 0, cacheScope: 'private', serverInfo: null, meta: {}, raw: { supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: -1 } } },
    'parseDiscoverResult works from this entry')
}

t.test('lib/index.ts', async (t) => {
  checkEntry(t, await import('../lib/index.js'))
})

t.test('lib/typebox/index.ts (the ./typebox entry): from the sources, the installed TypeBox itself', async (t) => {
  const entry = await import('../lib/typebox/index.js')
  const installed = await import('@sinclair/typebox')
  const system = await import('@sinclair/typebox/system')
  t.equal(entry.Type, installed.Type, 'Type')
  t.equal(entry.FormatRegistry, installed.FormatRegistry, 'FormatRegistry')
  t.equal(entry.TypeSystemPolicy, system.TypeSystemPolicy, 'TypeSystemPolicy, from @sinclair/typebox/system')
  t.ok(Object.keys(installed).every((name) => name in entry), 'all of @sinclair/typebox\'s index')
})

const dist = join(REPO_ROOT, 'dist', 'lib', 'index.js')
// a variable, so the type check does not need dist/ to exist yet
const PACKAGE_NAME = 'fastify-mcp-capabilities'

t.test('built package, through its exports map', { skip: existsSync(dist) ? false : 'not built (npm run build)' }, async (t) => {
  checkEntry(t, await import(dist))
  checkEntry(t, await import(PACKAGE_NAME))
})

t.test('built package: a name two entries export is one value (the bundles share chunks, scripts/build.mjs)', { skip: existsSync(dist) ? false : 'not built (npm run build)' }, async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  const specifiers = Object.keys(pkg.exports).filter((key) => !key.endsWith('.json')).map((key) => key === '.' ? PACKAGE_NAME : `${PACKAGE_NAME}/${key.slice(2)}`)
  const entries = await Promise.all(specifiers.map(async (specifier) => [specifier, await import(specifier) as Entry] as const))
  const seen = new Map<string, { specifier: string, value: unknown }>()
  let shared = 0
  for (const [specifier, entry] of entries) {
    for (const [name, value] of Object.entries(entry)) {
      const first = seen.get(name)
      if (first === undefined) {
        seen.set(name, { specifier, value })
        continue
      }
      shared++
      t.equal(value, first.value, `${name}: the same from ${first.specifier} and ${specifier}`)
    }
  }
  t.ok(shared > 0, 'some name is exported by two entries (parseDiscoverResult: "." and "./client")')
})

t.test('package.json exports: types first', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  const main = pkg.exports['.']
  t.equal(Object.keys(main)[0], 'types', 'the types condition comes first')
  t.equal(main.default, './dist/lib/index.js', 'default condition points at the build')
  t.equal(pkg.name, PACKAGE_NAME)
  t.equal(pkg.type, 'module', 'ESM package')
})
