/**
 * The CommonJS dependencies every deployment loads at import, taken with
 * `require` instead of `import`. An ES module importing a CommonJS one makes
 * Node scan that module's source for its export names with its CommonJS
 * lexer; on a cold start, after the application's own `import 'fastify'` has
 * run that lexer once, scanning these three made V8 compile its hot loop
 * with TurboFan a second time: ~50 ms of CPU on every new process, on the
 * one core a pinned or small container has (bench/cold-start.ts,
 * docs/performance.md "CommonJS dependencies without the lexer").
 * `require` reads the same files (these packages have no ES build) without
 * the scan. test/package/commonjs-dependencies.test.ts keeps the bundle free
 * of such imports.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** `fastify-plugin`: the plugin shares its decorators and hooks with the application. */
export const fastifyPlugin = require('fastify-plugin') as typeof import('fastify-plugin')

/** `@fastify/error`: the coded registration errors (lib/errors.ts). */
export const createError = require('@fastify/error') as typeof import('@fastify/error')

/** `secure-json-parse`: the request body's parser (lib/endpoint/body-parser.ts). */
export const secureJson = require('secure-json-parse') as typeof import('secure-json-parse')
