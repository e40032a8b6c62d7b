/**
 * MCP Apps definitions: what appTool / appResource / defineAppResources refuse
 * at definition time (each with FST_MCP_INVALID_DEFINITION) and what they make.
 */
import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { appResource, appTool, defineAppResources, defineTools, UI_MIME_TYPE } from '../../lib/index.js'

const HTML = '<!DOCTYPE html><html><body>app</body></html>'
const handler = () => ({ content: [{ type: 'text' as const, text: 'ok' }] })

function refusal (t: Test, make: () => unknown, pattern: RegExp, what: string): void {
  t.throws(make, { code: 'FST_MCP_INVALID_DEFINITION', message: pattern }, what)
}

t.test('tool ui: a ui:// resourceUri and a visibility of distinct model/app', async (t) => {
  for (const resourceUri of ['https://example.com/app', 'ui:', 'ui://', 'not a uri', 42, undefined]) {
    refusal(t, () => appTool({ ui: { resourceUri } as any, handler }), /ui\.resourceUri" must be a ui:\/\/ URI/, `resourceUri ${String(resourceUri)}`)
  }
  for (const visibility of [[], ['user'], ['model', 'model'], 'app', [null]]) {
    refusal(t, () => appTool({ ui: { resourceUri: 'ui://a/b', visibility } as any, handler }), /visibility/, `visibility ${JSON.stringify(visibility)}`)
  }
  refusal(t, () => appTool({ ui: { resourceUri: 'ui://a/b', csp: {} } as any, handler }), /"ui\.csp" is not a tool ui field/, 'csp belongs to the resource')
  refusal(t, () => appTool({ ui: { resourceUri: 'ui://a/b' }, _meta: { ui: {} }, handler }), /must not set "ui" itself/, '_meta.ui by hand')
  refusal(t, () => appTool({ handler } as any), /"ui" must be an object/, 'no ui')
})

t.test('tool ui: _meta.ui plus the flat key older hosts read, other _meta kept; types flow to the handler', async (t) => {
  const tool = appTool({
    ui: { resourceUri: 'ui://notes/board', visibility: ['app'] },
    _meta: { 'example.com/owner': 'notes' },
    input: Type.Object({ n: Type.Integer() }),
    handler: ({ n }) => ({ content: [{ type: 'text', text: String(n + 1) }] })
  })
  t.strictSame(tool._meta, { 'example.com/owner': 'notes', ui: { resourceUri: 'ui://notes/board', visibility: ['app'] }, 'ui/resourceUri': 'ui://notes/board' })
  t.notOk('ui' in tool, 'the ui field is not part of the plain definition')
  const defined = defineTools({ bump: tool })
  t.strictSame((defined.listTools().tools[0] as any)._meta.ui, { resourceUri: 'ui://notes/board', visibility: ['app'] })
})

t.test('resource: ui:// URI, origins in the CSP, known permissions, an HTML5 document', async (t) => {
  for (const uri of ['https://example.com/app', 'ui://', 'UI-less']) {
    refusal(t, () => appResource({ uri, html: HTML }), /"uri" must be a ui:\/\/ URI/, `uri ${uri}`)
  }
  const notOrigins = ['https://example.com/path', 'example.com', 'ftp://example.com', 'https://example.com:99999', 'https://user@example.com', 'https://*', "'self'", 'https://example.com/', 'https://a.*.example.com', '*']
  for (const origin of notOrigins) {
    refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, csp: { connectDomains: [origin] } }), /not an origin|out of range/, `origin ${origin}`)
  }
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, csp: { scriptDomains: [] } as any }), /"csp\.scriptDomains" is not a CSP field/, 'unknown CSP field')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, csp: { frameDomains: 'https://a.example' } as any }), /must be an array of origins/, 'a string, not a list')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, permissions: { usb: {} } as any }), /"permissions\.usb" is not a permission/, 'unknown permission')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, permissions: { camera: true } as any }), /"permissions\.camera" must be \{\}/, 'permission not {}')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, prefersBorder: 'yes' as any }), /"prefersBorder" must be a boolean/, 'prefersBorder')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, domain: '' }), /"domain" must be a non-empty string/, 'empty domain')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: '<html><body>no doctype</body></html>' }), /whole HTML5 document/, 'no doctype')
  refusal(t, () => appResource({ uri: 'ui://a/b', html: HTML, mimeType: 'text/html' } as any), /"mimeType" is not an app resource field/, 'the MIME type is not the author\'s to choose')
  t.throws(() => defineAppResources({ a: { uri: 'ui://a/b', html: HTML }, b: { uri: 'ui://a/b', html: HTML } }), { code: 'FST_MCP_DUPLICATE_DEFINITION' }, 'a URI twice')

  const made = appResource({
    uri: 'ui://a/b',
    html: HTML,
    csp: { connectDomains: ['https://api.example.com', 'wss://live.example.com:8443', 'https://api.example.com'], resourceDomains: ['https://*.cdn.example.com', 'http://[::1]:3000'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: false
  })
  t.equal(made.mimeType, UI_MIME_TYPE)
  t.strictSame(made._meta, {
    ui: {
      csp: { connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'], resourceDomains: ['https://*.cdn.example.com', 'http://[::1]:3000'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false
    }
  }, 'origins deduplicated, the ui metadata on the listed resource')
})

t.test('resource: an html function is called per read; what it returns must be a document', async (t) => {
  let reads = 0
  const defined = defineAppResources({
    live: { uri: 'ui://a/live', html: async () => `<!doctype html><p>${++reads}</p>` },
    broken: { uri: 'ui://a/broken', html: () => 'just text' }
  })
  const ctx = {} as any
  const first = await defined.readResource({ uri: 'ui://a/live' }, ctx)
  const second = await defined.readResource({ uri: 'ui://a/live' }, ctx)
  t.match(first.contents[0], { uri: 'ui://a/live', mimeType: UI_MIME_TYPE, text: '<!doctype html><p>1</p>' })
  t.match(second.contents[0], { text: '<!doctype html><p>2</p>' })
  t.throws(() => defined.readResource({ uri: 'ui://a/broken' }, ctx), /whole HTML5 document/)
})
