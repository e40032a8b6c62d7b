/**
 * Checks every message an endpoint streams against the spec's JSON Schema of
 * its protocol version: notifications by method, responses by what they answer.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import formats from 'ajv-formats'
import { SHARED_DIR } from '../helpers/shared.js'

const NOTIFICATION_TYPES: Record<string, string> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification'
}

const ajvs = new Map<string, Ajv2020>()

/** A validator for `$defs/<type>` of a 2025-11-25 or 2026-07-28 schema. */
export function specType (version: '2025-11-25' | '2026-07-28', type: string): ValidateFunction {
  let ajv = ajvs.get(version)
  if (ajv === undefined) {
    const schema = JSON.parse(readFileSync(join(SHARED_DIR, 'mcp-spec', version, 'schema.json'), 'utf8'))
    ajv = new Ajv2020({ strict: false, allErrors: true })
    const addFormats = ((formats as any).default ?? formats) as (a: Ajv2020) => void
    addFormats(ajv)
    ajv.addSchema({ ...schema, $id: `mcp-${version}` })
    ajvs.set(version, ajv)
  }
  const validate = ajv.getSchema(`mcp-${version}#/$defs/${type}`)
  if (validate === undefined) throw new Error(`no ${type} in the ${version} schema`)
  return validate
}

/**
 * The schema type a streamed message must satisfy; `listenResponse` marks the
 * final response of a subscriptions/listen stream.
 */
export function schemaTypeOf (message: any, version: '2025-11-25' | '2026-07-28', listenResponse = false): string {
  if (typeof message?.method === 'string') {
    const type = NOTIFICATION_TYPES[message.method]
    if (type === undefined) throw new Error(`unexpected method ${message.method}`)
    return type
  }
  if (message?.error !== undefined) return 'JSONRPCErrorResponse'
  if (listenResponse && version === '2026-07-28') return 'SubscriptionsListenResultResponse'
  return 'JSONRPCResultResponse'
}

/** Null when valid, else the ajv errors as text. */
export function specErrors (message: unknown, version: '2025-11-25' | '2026-07-28', listenResponse = false): string | null {
  const validate = specType(version, schemaTypeOf(message, version, listenResponse))
  return validate(message) ? null : JSON.stringify(validate.errors)
}
