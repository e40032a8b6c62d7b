/**
 * Route schemas as tools list them: shared $refs inlined (by id, id#,
 * id#/pointer, relative to the referring schema's id, #anchor), recursion
 * cut to {}, draft-07 spellings rewritten to 2020-12, and every output
 * accepted by Ajv2020's meta-schema.
 */
import { Type } from '@sinclair/typebox'
import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import { listedSchema, sharedSchemasOf, UnresolvedRef } from '../../lib/routes/route-schema.js'

const ajv = new Ajv2020({ strict: false })
const shared = sharedSchemasOf({
  'http://example.com/user.json': { $id: 'http://example.com/user.json', type: 'object', properties: { address: { $ref: 'address.json#' } }, definitions: { id: { type: 'integer' } } },
  'http://example.com/address.json': { $id: 'http://example.com/address.json', type: 'object', properties: { city: { type: 'string' } } },
  Node: { $id: 'Node', type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: 'Node#' } } } },
  Anchored: { $id: 'Anchored', $defs: { x: { $anchor: 'pos', type: 'integer', minimum: 0 } } },
  Tb: Type.Object({ n: Type.Number() }, { $id: 'Tb' })
})

function listed (schema: unknown): unknown {
  const out = listedSchema(schema, shared, 'test')
  t.ok(ajv.validateSchema(out as object), 'valid 2020-12')
  ajv.compile(out as object)
  return out
}

t.strictSame(listed({ $ref: 'http://example.com/user.json#' }), { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } },
  'a relative $ref inside a shared schema resolves against its $id')
t.strictSame(listed({ $ref: 'http://example.com/user.json#/definitions/id' }), { type: 'integer' })
t.strictSame(listed({ $ref: 'Node' }), { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: {} } } }, 'recursion is cut to {}')
t.strictSame(listed({ $ref: 'Anchored#pos' }), { type: 'integer', minimum: 0 })
t.strictSame(listed(Type.Object({ a: Type.Ref('Tb'), b: Type.Tuple([Type.String(), Type.Number()]) })), {
  type: 'object',
  properties: { a: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, b: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2, maxItems: 2 } },
  required: ['a', 'b']
}, 'TypeBox refs and tuples')
t.strictSame(listed({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { a: { type: 'string', nullable: true }, b: { $ref: '#/definitions/b', description: 'the b' } },
  dependencies: { a: ['b'], b: { required: ['a'] } },
  definitions: { b: { type: 'integer', description: 'an integer' } }
}), {
  type: 'object',
  properties: { a: { type: ['string', 'null'] }, b: { type: 'integer', description: 'the b' } },
  dependentRequired: { a: ['b'] },
  dependentSchemas: { b: { required: ['a'] } }
}, 'draft-07: $schema and definitions dropped, nullable and dependencies rewritten, sibling annotations win')
t.throws(() => listedSchema({ $ref: 'Missing#' }, shared, 'test'), { name: 'UnresolvedRef', ref: 'Missing#' })
t.throws(() => listedSchema({ $ref: 'Node#/properties/nope' }, shared, 'test'), { name: 'UnresolvedRef', ref: 'Node#/properties/nope' })
t.ok(new UnresolvedRef('x') instanceof Error)
