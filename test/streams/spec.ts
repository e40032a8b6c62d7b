/**
 * Checks every message an endpoint streams against the spec's JSON Schema of
 * its protocol version: notifications by method, responses by what they answer.
 */
import { specValidator } from '../helpers/spec-schemas.js'

const NOTIFICATION_TYPES: Record<string, string> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification'
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
  const validate = specValidator(version, schemaTypeOf(message, version, listenResponse))
  return validate(message) ? null : JSON.stringify(validate.errors)
}
