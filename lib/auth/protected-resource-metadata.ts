/**
 * The OAuth 2.0 Protected Resource Metadata document (RFC 9728) that tells
 * MCP clients which authorization servers issue tokens for this endpoint,
 * and where it is served: path-aware, the well-known segment inserted between
 * the host and the resource's path (section 3.1), so several resources on
 * one origin each have their own; at the root too when the resource is the
 * bare origin.
 */

export const WELL_KNOWN_PREFIX = '/.well-known/oauth-protected-resource'

/** RFC 9728 section 2, the fields this endpoint states. */
export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  scopes_supported?: string[]
  bearer_methods_supported: ['header']
  resource_name?: string
  resource_documentation?: string
}

/** The path of the metadata document on the resource's origin. */
export function metadataPath (resource: URL): string {
  const path = resource.pathname.replace(/\/+$/, '')
  return WELL_KNOWN_PREFIX + path
}

/** The absolute URL clients are sent to (`resource_metadata`). */
export function metadataUrl (resource: URL): string {
  return resource.origin + metadataPath(resource)
}

export interface MetadataFields {
  resource: string
  authorizationServers: readonly string[]
  scopesSupported: readonly string[]
  resourceName?: string | undefined
  resourceDocumentation?: string | undefined
}

export function buildMetadata (fields: MetadataFields): ProtectedResourceMetadata {
  const doc: ProtectedResourceMetadata = {
    resource: fields.resource,
    authorization_servers: [...fields.authorizationServers],
    bearer_methods_supported: ['header']
  }
  if (fields.scopesSupported.length > 0) doc.scopes_supported = [...fields.scopesSupported]
  if (fields.resourceName !== undefined) doc.resource_name = fields.resourceName
  if (fields.resourceDocumentation !== undefined) doc.resource_documentation = fields.resourceDocumentation
  return doc
}
