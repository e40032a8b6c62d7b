#!/usr/bin/env node
/**
 * `npm run pack:release`: the release tarball, checked, in release/. In order:
 * package.json sanity (no placeholder URL, publishConfig ready for the
 * registry, every `exports` target inside `files`), the type check, a clean
 * build, the packed file list (every `exports` target present, nothing
 * beyond the package's own files), then `npm pack` into release/. The
 * tarball is what scripts/release.sh publishes and what the README tells a
 * user to install until the package is on the registry.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const RELEASE_DIR = 'release'
/** Left from a template: a published package must not point at them. */
const PLACEHOLDER = /example\.invalid|<host>|<owner>|\bOWNER\b/i
/** What the tarball may hold: the manifest, the guide, the build and the sources its maps point at. */
const SHIPPED = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|docs\/.+\.md|dist\/lib\/.+\.(js|d\.ts|js\.map|d\.ts\.map)|lib\/.+\.ts)$/
const REQUIRED = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']

const problems = []
const step = (text) => console.log(`\n▶ ${text}`)
const run = (command, args, options = {}) => execFileSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options })

/** Every file an `exports` entry (or main / types) names. */
function targets (pkg) {
  const out = new Set([pkg.main, pkg.types].filter((file) => typeof file === 'string'))
  const walk = (value) => {
    if (typeof value === 'string') out.add(value)
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk)
  }
  walk(pkg.exports)
  return [...out].map((file) => posix.normalize(file))
}

step('package.json')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
for (const key of ['repository', 'homepage', 'bugs']) {
  if (PLACEHOLDER.test(JSON.stringify(pkg[key] ?? ''))) problems.push(`package.json "${key}" holds a placeholder: ${JSON.stringify(pkg[key])}`)
}
if (pkg.publishConfig?.access !== 'public') problems.push('package.json publishConfig.access must be "public"')
if (pkg.publishConfig?.provenance !== true) problems.push('package.json publishConfig.provenance must be true')
if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(pkg.version ?? '')) problems.push(`package.json version is not a release version: ${pkg.version}`)
const files = (pkg.files ?? []).map((entry) => posix.normalize(entry).replace(/\/$/, ''))
// npm always packs package.json
for (const file of targets(pkg).filter((target) => target !== 'package.json')) {
  if (!files.some((entry) => file === entry || file.startsWith(`${entry}/`))) problems.push(`${file} (exports, main or types) is outside package.json "files"`)
}
if (problems.length > 0) fail()
console.log(`${pkg.name}@${pkg.version}: no placeholder, publishConfig ${JSON.stringify(pkg.publishConfig)}, ${targets(pkg).length} export targets inside "files"`)

step('type check (tsc -p tsconfig.json --noEmit)')
run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'])

step('clean build')
run('npm', ['run', 'clean'])
run('npm', ['run', 'build'])

step('packed file list')
// the build is done: the lifecycle scripts (prepack cleans, prepare builds) would only repeat it
const listed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }))[0]
const packed = listed.files.map((file) => file.path)
for (const file of targets(pkg)) if (!packed.includes(file)) problems.push(`${file} (exports, main or types) is not in the tarball`)
for (const file of REQUIRED) if (!packed.includes(file)) problems.push(`${file} is not in the tarball`)
for (const file of packed) if (!SHIPPED.test(file)) problems.push(`${file} would ship but is none of the package's own files`)
if (problems.length > 0) fail()
console.log(`${packed.length} files, every export target present, nothing else`)

step(`npm pack into ${RELEASE_DIR}/`)
mkdirSync(join(ROOT, RELEASE_DIR), { recursive: true })
const made = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', RELEASE_DIR], { cwd: ROOT, encoding: 'utf8' }))[0]
const tarball = join(ROOT, RELEASE_DIR, made.filename)
console.log(`${relative(ROOT, tarball)}: ${made.entryCount} files, ${made.size} bytes, sha512 ${made.integrity}`)
console.log(`\nInstall it in a project (offline, no build):\n  npm install ${tarball} fastify @sinclair/typebox`)

function fail () {
  console.error(`\npack:release stopped:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  process.exit(1)
}
