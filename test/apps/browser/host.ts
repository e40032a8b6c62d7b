/**
 * A small MCP Apps host page for the browser test (bundled with esbuild when
 * the test runs): the official SDK client talks to the server at /mcp in the
 * era the page's query names, the ext-apps AppBridge connects it to the app,
 * and the app's HTML (read with resources/read) runs in a sandboxed iframe
 * (`allow-scripts` only: an opaque origin) under the CSP a host builds from
 * the resource's `_meta.ui.csp` (the specification's restrictive default
 * when it declares none).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { AppBridge, buildAllowAttribute, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge'

interface Csp { connectDomains?: string[], resourceDomains?: string[], frameDomains?: string[], baseUriDomains?: string[] }

interface HostState {
  era?: string
  protocolVersion?: string
  toolCalls: string[]
  initialized: boolean
  csp?: string
  error?: string
}

const state: HostState = { toolCalls: [], initialized: false }
;(window as unknown as { hostState: HostState }).hostState = state

/** The Content-Security-Policy for the app: only the origins the resource declared. */
export function appCsp (csp: Csp | undefined): string {
  const list = (domains: string[] | undefined) => (domains ?? []).join(' ')
  const resources = list(csp?.resourceDomains)
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `img-src 'self' data: ${resources}`.trim(),
    `font-src 'self' ${resources}`.trim(),
    `media-src 'self' data: ${resources}`.trim(),
    `connect-src ${list(csp?.connectDomains) || "'none'"}`,
    `frame-src ${list(csp?.frameDomains) || "'none'"}`,
    `base-uri ${list(csp?.baseUriDomains) || "'self'"}`,
    "object-src 'none'"
  ].join('; ')
}

function withCsp (html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`
  // First thing in <head>, so it governs every script of the document.
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html
}

async function main (): Promise<void> {
  const era = new URLSearchParams(location.search).get('era') ?? 'modern'
  state.era = era
  const client = new Client({ name: 'browser-test-host', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } as never,
    versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } as never
  })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)))
  state.protocolVersion = (client as unknown as { getNegotiatedProtocolVersion?: () => string }).getNegotiatedProtocolVersion?.()

  // The model "calls" the tool that has an app: find it and its resource.
  const { tools } = await client.listTools()
  const tool = tools.find((candidate) => candidate.name === 'show_notes')
  if (tool === undefined) throw new Error('show_notes is not listed')
  const uri = getToolUiResourceUri(tool)
  if (uri === undefined) throw new Error('show_notes has no UI resource')
  const read = await client.readResource({ uri })
  const content = read.contents[0] as { mimeType?: string, text?: string, blob?: string, _meta?: { ui?: { csp?: Csp, permissions?: Record<string, object> } } }
  if (content?.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`unexpected MIME type ${String(content?.mimeType)}`)
  const html = content.text ?? atob(content.blob ?? '')
  const policy = appCsp(content._meta?.ui?.csp)
  state.csp = policy

  const iframe = document.createElement('iframe')
  iframe.id = 'app'
  iframe.setAttribute('sandbox', 'allow-scripts')
  iframe.setAttribute('allow', buildAllowAttribute(content._meta?.ui?.permissions as never))
  iframe.style.cssText = 'width: 480px; height: 420px; border: 1px solid #999'
  document.body.append(iframe)

  const bridge = new AppBridge(client, { name: 'browser-test-host', version: '1.0.0' }, { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } })
  bridge.oninitialized = () => {
    state.initialized = true
    void (async () => {
      const args = {}
      await bridge.sendToolInput({ arguments: args })
      const result = await client.callTool({ name: tool.name, arguments: args })
      await bridge.sendToolResult(result as never)
    })().catch((err: unknown) => { state.error = String(err) })
  }
  await bridge.connect(new PostMessageTransport(iframe.contentWindow as Window, iframe.contentWindow as Window))
  // connect() set up forwarding to the server through the client; each tools/call of the app is recorded on its way.
  const forward = bridge.oncalltool as NonNullable<typeof bridge.oncalltool>
  bridge.oncalltool = async (params, extra) => {
    state.toolCalls.push(params.name)
    return await forward(params, extra)
  }
  iframe.srcdoc = withCsp(html, policy)
}

main().catch((err: unknown) => {
  state.error = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err)
})
