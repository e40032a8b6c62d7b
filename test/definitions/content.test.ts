/**
 * Content helpers: image, audio, resource links and embedded resources from
 * bytes or base64, MIME types and base64 checked; each block a spec
 * ContentBlock, served as a tool result in both eras.
 */
import t from 'tap'
import { audioContent, defineTools, embeddedResource, imageContent, resourceLink, textContent } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from './helpers.js'
import { specValidator } from '../helpers/spec-schema.js'

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const PNG_BASE64 = Buffer.from(PNG).toString('base64')

t.test('blocks from bytes or base64, each a spec ContentBlock', async (t) => {
  const blocks = [
    textContent('hello', { annotations: { audience: ['user'] } }),
    imageContent(PNG, 'image/png'),
    imageContent(PNG_BASE64, 'image/png'),
    imageContent(Buffer.from(PNG).subarray(2), 'image/png'),
    audioContent(Buffer.from('RIFF'), 'audio/wav', { _meta: { seconds: 1 } }),
    resourceLink({ uri: 'notes://note/1', name: 'note-1', mimeType: 'text/markdown', size: 12 }),
    embeddedResource('notes://note/1', { text: '# Note' }, 'text/markdown; charset=utf-8'),
    embeddedResource('files://logo', { blob: PNG }, 'image/png')
  ]
  t.strictSame(blocks[1], { type: 'image', data: PNG_BASE64, mimeType: 'image/png' })
  t.strictSame(blocks[2], blocks[1], 'base64 in, the same block')
  t.equal((blocks[3] as { data: string }).data, Buffer.from(PNG.subarray(2)).toString('base64'), 'a view is encoded from its own bytes only')
  t.strictSame(blocks[7], { type: 'resource', resource: { uri: 'files://logo', mimeType: 'image/png', blob: PNG_BASE64 } })
  for (const version of ['2025-11-25', '2026-07-28'] as const) {
    const valid = specValidator(version, 'ContentBlock')
    for (const block of blocks) t.ok(valid(block), `${version}: ${block.type} is a ContentBlock`)
  }
})

t.test('bad arguments: a TypeError naming the problem', async (t) => {
  t.throws(() => imageContent(PNG, 'audio/wav'), { name: 'TypeError', message: 'imageContent: mimeType must be an image/* type (got "audio/wav")' })
  t.throws(() => audioContent(PNG, 'image/png'), { message: /audio\/\* type/ })
  t.throws(() => imageContent(PNG, 'png'), { message: /imageContent: mimeType must be a MIME type such as "image\/png"/ })
  t.throws(() => imageContent('not base64!', 'image/png'), { message: /bytes or a base64 string/ })
  t.throws(() => imageContent('abc', 'image/png'), { message: /base64/ }, 'unpadded')
  t.throws(() => imageContent(42 as never, 'image/png'), { message: /bytes \(Uint8Array, Buffer\) or a base64 string/ })
  t.throws(() => resourceLink({ uri: 'relative/path', name: 'x' }), { message: /resourceLink: uri must be an absolute URI/ })
  t.throws(() => resourceLink({ uri: 'a://b', name: '' }), { message: /name must be a non-empty string/ })
  t.throws(() => resourceLink({ uri: 'a://b', name: 'x', size: -1 }), { message: /size/ })
  t.throws(() => embeddedResource('a://b', {} as never), { message: /contents must be/ })
  t.throws(() => embeddedResource('a://b', { text: 'x' }, 'text'), { message: /MIME type/ })
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: a tool answers with them`, async (t) => {
    const { app } = await serve(t, defineTools({
      logo: { handler: () => ({ content: [imageContent(PNG, 'image/png'), resourceLink({ uri: 'files://logo', name: 'logo' })] }) },
      wrong: { handler: () => ({ content: [imageContent(PNG, 'text/plain')] }) }
    }))
    const client = injectClient(app, { era })
    t.strictSame((await client.callTool('logo')).content, [
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource_link', uri: 'files://logo', name: 'logo' }
    ])
    t.match(await client.callTool('wrong'), { isError: true, content: [{ text: /image\/\* type/ }] }, 'a mistake is a tool error the model can read')
  })
}
