/**
 * The endpoint's JSON body parser. Invalid JSON is a JSON-RPC parse error;
 * valid JSON that carries prototype-poisoning keys (`__proto__`,
 * `constructor.prototype`) is an invalid request: neither reaches a handler.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { secureJson } from '../common/commonjs-dependencies.js'
import { ErrorCode } from '../protocol/mcp-error.js'

/** An error the endpoint answers with a JSON-RPC error body (see error-handler.ts). */
export class JsonRpcHttpError extends Error {
  readonly statusCode: number
  readonly rpcCode: number

  constructor (statusCode: number, rpcCode: number, message: string) {
    super(message)
    this.name = 'JsonRpcHttpError'
    this.statusCode = statusCode
    this.rpcCode = rpcCode
  }
}

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const

export function parseJsonBody (text: string): unknown {
  if (text.length === 0) throw new JsonRpcHttpError(400, ErrorCode.ParseError, 'Parse error: empty body')
  try {
    return secureJson.parse(text, null, PARSE_OPTIONS)
  } catch {
    try {
      JSON.parse(text)
    } catch {
      throw new JsonRpcHttpError(400, ErrorCode.ParseError, 'Parse error: body is not valid JSON')
    }
    throw new JsonRpcHttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: forbidden "__proto__" or "constructor.prototype" key')
  }
}

/** Replaces the context's parsers with the JSON one: any other content type gets 415. */
export function installJsonParser (instance: FastifyInstance, bodyLimit: number): void {
  instance.removeAllContentTypeParsers()
  instance.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      try {
        done(null, parseJsonBody(body as string))
      } catch (err) {
        done(err as Error)
      }
    })
}
