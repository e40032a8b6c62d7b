/**
 * MCP Apps in a real browser (headless Chromium, the Debian `chromium`
 * package; CHROMIUM_PATH overrides where it is): a small host page
 * (browser/host.ts: the official SDK client, the ext-apps AppBridge) reads the
 * example's notes board from the running server, renders it in a sandboxed
 * iframe under the CSP a host applies, and the app, through the host, calls
 * the app-only tool that adds a note. Checked in both eras: what the app
 * shows, the note on the server, the requests the server saw, the sandbox and
 * the CSP. A screenshot of each run is kept in test/artifacts/apps/ (not committed).
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import Fastify from 'fastify'
import { chromium, type Browser } from 'playwright-core'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { appsServer } from '../../examples/apps-server.js'
import { NoteStore } from '../../examples/server.js'
import { REPO_ROOT } from '../helpers/paths.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'apps')
const HOST_PAGE = '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Test host</title></head><body><h1>Test host</h1><script type="module" src="/host.js"></script></body></html>'

t.setTimeout(180_000)

if (!existsSync(CHROMIUM)) {
  t.fail(`Chromium not found at ${CHROMIUM}: install the Debian package (apt-get install chromium) or set CHROMIUM_PATH`)
} else {
  const bundled = await build({ entryPoints: [join(REPO_ROOT, 'test/apps/browser/host.ts')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'error' })
  const hostScript = (bundled.outputFiles[0] as { text: string }).text
  mkdirSync(ARTIFACTS, { recursive: true })
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] })
  t.teardown(() => browser.close())

  for (const era of ['legacy', 'modern'] as const) {
    t.test(`${era}: the host renders the board, the app adds a note through the host`, async (t) => {
      const store = new NoteStore()
      const seen: Array<{ method: unknown, version: unknown }> = []
      const app = Fastify()
      app.addHook('preHandler', async (request) => {
        if (request.url === '/mcp' && request.method === 'POST') seen.push({ method: (request.body as { method?: unknown }).method, version: request.headers['mcp-protocol-version'] })
      })
      await app.register(mcpCapabilities, { server: appsServer(store), serverInfo: { name: 'apps-browser-test', version: '1.0.0' }, validate: { results: true } })
      app.get('/host.html', (_request, reply) => reply.type('text/html; charset=utf-8').send(HOST_PAGE))
      app.get('/host.js', (_request, reply) => reply.type('text/javascript; charset=utf-8').send(hostScript))
      await app.listen({ host: '127.0.0.1', port: 0 })
      t.teardown(() => app.close())
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

      const page = await browser.newPage({ viewport: { width: 640, height: 560 } })
      t.teardown(() => page.close())
      const problems: string[] = []
      page.on('pageerror', (err) => problems.push(err.message))
      const consoleLines: string[] = []
      page.on('console', (message) => { consoleLines.push(`${message.type()}: ${message.text()}`) })
      await page.goto(`${base}/host.html?era=${era}`)

      const board = page.frameLocator('#app')
      try {
        await board.locator('#notes li', { hasText: 'Welcome' }).waitFor({ timeout: 20_000 })
      } catch (err) {
        t.fail(`the board did not show the notes: ${String(err)}; host: ${JSON.stringify(await page.evaluate(() => (globalThis as any).hostState))}; page errors: ${problems.join(' | ')}; console: ${consoleLines.join(' | ')}`)
        return
      }
      t.strictSame(await board.locator('#notes li b').allTextContents(), ['Welcome', 'Shopping'], 'the tool result rendered by the app')

      await board.locator('#title').fill(`From the browser (${era})`)
      await board.locator('#body').fill('Typed into the app.')
      await board.locator('#save').click()
      try {
        await board.locator('#status', { hasText: 'Saved note 3' }).waitFor({ timeout: 20_000 })
      } catch (err) {
        t.fail(`the app did not save: status ${JSON.stringify(await board.locator('#status').textContent())}; host: ${JSON.stringify(await page.evaluate(() => (globalThis as any).hostState))}; page errors: ${problems.join(' | ')}; console: ${consoleLines.join(' | ')}`)
        return
      }
      t.strictSame(await board.locator('#notes li b').allTextContents(), ['Welcome', 'Shopping', `From the browser (${era})`], 'the app shows the note it added')
      t.match(store.get('3'), { title: `From the browser (${era})`, body: 'Typed into the app.' }, 'the note is on the server')

      const host = await page.evaluate(() => (globalThis as any).hostState)
      t.equal(host.error, undefined, 'no host error')
      t.ok(host.initialized, 'the app finished ui/initialize')
      t.strictSame(host.toolCalls, ['add_note_from_app'], 'the app called the app-only tool through the host')
      t.match(host.csp, /default-src 'none'/)
      t.match(host.csp, /connect-src 'none'/, 'the board declared no connect origin')

      // The era the browser's client spoke, as the server saw it.
      const calls = seen.filter((s) => s.method === 'tools/call')
      t.equal(calls.length, 2, 'show_notes by the host, add_note_from_app for the app')
      if (era === 'legacy') {
        t.ok(seen.some((s) => s.method === 'initialize'), 'the legacy handshake')
        t.ok(calls.every((s) => s.version === '2025-11-25'), 'legacy tools/call')
      } else {
        t.notOk(seen.some((s) => s.method === 'initialize'), 'no handshake')
        t.ok(calls.every((s) => s.version === '2026-07-28'), 'modern tools/call')
      }

      // The sandbox: an opaque origin, and the CSP stops the app from reaching the network itself.
      const frame = page.frames().find((f) => f !== page.mainFrame())
      t.ok(frame, 'the app frame')
      t.equal(await page.locator('#app').getAttribute('sandbox'), 'allow-scripts')
      t.equal(await frame?.evaluate(() => (globalThis as any).origin), 'null', 'the app runs in an opaque origin')
      const reach = await frame?.evaluate((url) => (globalThis as any).fetch(url).then(() => 'reached', () => 'blocked'), `${base}/host.html`)
      t.equal(reach, 'blocked', 'connect-src keeps the app off the network')

      const shot = join(ARTIFACTS, `notes-board-${era}.png`)
      await page.screenshot({ path: shot })
      t.ok(statSync(shot).size > 1000, `screenshot kept at ${shot}`)
      t.strictSame(problems, [], 'no page errors')
    })
  }
}
