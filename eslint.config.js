import neostandard, { resolveIgnoresFromGitignore } from 'neostandard'

// neostandard (standard style, no semicolons) with its TypeScript rules, as the
// Fastify packages use it. The few changes below fit idioms this package uses on
// purpose; everything else is neostandard as shipped.
export default [
  ...neostandard({
    ts: true,
    noJsx: true,
    ignores: [
      ...resolveIgnoresFromGitignore(),
      'test/fixtures/**'
    ]
  }),
  {
    rules: {
      // `const X = Type.Object(...)` beside `type X = Static<typeof X>` is the TypeBox
      // idiom for a schema and its type; real redeclarations are compile errors.
      '@typescript-eslint/no-redeclare': 'off',
      // `void promise` marks a promise left running on purpose (its errors are handled inside).
      'no-void': ['error', { allowAsStatement: true }],
      // Input checks match control characters on purpose (header values, URIs, names).
      'no-control-regex': 'off',
      // The package has no Node-style callbacks; option specs call a helper named `callback`.
      'n/no-callback-literal': 'off'
    }
  }
]
