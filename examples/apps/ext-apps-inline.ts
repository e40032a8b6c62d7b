/**
 * The ext-apps `App` class for an app's HTML, inline and bundle-free: the
 * package's own browser build (`app-with-deps`, one ES module with no imports)
 * with its closing `export { … }` turned into one object, so it runs in a
 * plain `<script type="module">` under a host's default CSP
 * (`script-src 'self' 'unsafe-inline'`): no CDN, no extra origin to allow.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

let cached: string | undefined

/** JavaScript that defines `const extApps = { App, PostMessageTransport, … }`. */
export function extAppsScript (): string {
  if (cached !== undefined) return cached
  const bundlePath = require.resolve('@modelcontextprotocol/ext-apps/app-with-deps')
  const source = readFileSync(bundlePath, 'utf8')
  const at = source.lastIndexOf('export{')
  if (at === -1 || !source.trimEnd().endsWith('};')) throw new Error(`${bundlePath}: no closing export block (is this the ext-apps browser build?)`)
  const names = source.slice(at + 'export{'.length, source.trimEnd().length - 2).split(',').map((pair) => {
    const [local, exported] = pair.trim().split(/\s+as\s+/)
    return `${JSON.stringify(exported ?? local)}: ${local}`
  })
  // The HTML parser would end the script at "</script": the build has none, and this keeps it so.
  if (/<\/script/i.test(source)) throw new Error(`${bundlePath}: holds "</script", which cannot be inlined`)
  cached = `${source.slice(0, at)}\nconst extApps = Object.freeze({ ${names.join(', ')} });\n`
  return cached
}
