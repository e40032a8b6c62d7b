/**
 * TypeBox schemas of the wire messages the plugin sends and reads, with their
 * static types, so each field is defined once and both validated and typed
 * from here.
 *
 * Objects stay open (`additionalProperties: true`) wherever the spec is open:
 * validation then accepts what the spec accepts, and fast-json-stringify (the
 * Fastify response serializer) keeps fields the schema does not list instead
 * of dropping them.
 *
 * Two deliberate differences from the spec's JSON Schemas:
 * - `format: 'uri'` is left off (`websiteUrl`, icon `src`): those fields are
 *   display-only, and TypeBox's `Value.Check` rejects every unregistered
 *   format. Check outgoing URLs where they are configured.
 * - request ids accept any number (JSON-RPC 2.0), not only integers, so an id
 *   is always echoed as received.
 */
import { type Static, type TSchema, Type } from '../typebox/index.js'
import { SERVER_INFO_META } from './meta.js'

const open = { additionalProperties: true } as const

// ---------------------------------------------------------------------------
// Building blocks

/** Any JSON object (the spec's `JSONObject`). */
export const JsonObject = Type.Record(Type.String(), Type.Unknown())
export type JsonObject = Static<typeof JsonObject>

/** A JSON-RPC request id; never null in MCP. */
export const RequestId = Type.Union([Type.String(), Type.Number()])
export type RequestId = Static<typeof RequestId>

const JsonRpcVersion = Type.Literal('2.0')

/** `"public"` may be shared across credentials, `"private"` never. */
export const CacheScope = Type.Union([Type.Literal('public'), Type.Literal('private')])
export type CacheScope = Static<typeof CacheScope>

export const Icon = Type.Object({
  src: Type.String(),
  mimeType: Type.Optional(Type.String()),
  sizes: Type.Optional(Type.Array(Type.String())),
  theme: Type.Optional(Type.Union([Type.Literal('light'), Type.Literal('dark')]))
}, open)
export type Icon = Static<typeof Icon>

/** `serverInfo` / `clientInfo`: who is on the other end (display only). */
export const Implementation = Type.Object({
  name: Type.String(),
  version: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  icons: Type.Optional(Type.Array(Icon)),
  websiteUrl: Type.Optional(Type.String())
}, open)
export type Implementation = Static<typeof Implementation>

// ---------------------------------------------------------------------------
// JSON-RPC 2.0 envelopes

export const JsonRpcRequest = Type.Object({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  method: Type.String(),
  params: Type.Optional(JsonObject)
}, open)
export type JsonRpcRequest = Static<typeof JsonRpcRequest>

export const JsonRpcNotification = Type.Object({
  jsonrpc: JsonRpcVersion,
  method: Type.String(),
  params: Type.Optional(JsonObject)
}, open)
export type JsonRpcNotification = Static<typeof JsonRpcNotification>

/**
 * Any result: an open object (modern results also carry `resultType`).
 * @alias the spec's name for it
 */
export const Result = JsonObject
export type Result = Static<typeof Result>

/** A result response whose `result` has the given schema. */
export function ResultResponseOf<T extends TSchema> (result: T) {
  return Type.Object({
    jsonrpc: JsonRpcVersion,
    id: RequestId,
    result
  }, open)
}

export const JsonRpcResultResponse = ResultResponseOf(Result)
export type JsonRpcResultResponse = Static<typeof JsonRpcResultResponse>

export const JsonRpcError = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  data: Type.Optional(Type.Unknown())
}, open)
export type JsonRpcError = Static<typeof JsonRpcError>

/** An error response whose `error` has the given schema. */
export function ErrorResponseOf<T extends TSchema> (error: T) {
  return Type.Object({
    jsonrpc: JsonRpcVersion,
    // absent only when the request's id could not be read (parse error)
    id: Type.Optional(RequestId),
    error
  }, open)
}

export const JsonRpcErrorResponse = ErrorResponseOf(JsonRpcError)
export type JsonRpcErrorResponse = Static<typeof JsonRpcErrorResponse>

/**
 * Serializer schema for every error response the endpoint sends.
 * @alias the spec's name for it
 */
export const ErrorResponse = JsonRpcErrorResponse
export type ErrorResponse = JsonRpcErrorResponse

// ---------------------------------------------------------------------------
// Capabilities

const ListChanged = Type.Object({ listChanged: Type.Optional(Type.Boolean()) }, open)
const ResourcesCapability = Type.Object({
  listChanged: Type.Optional(Type.Boolean()),
  subscribe: Type.Optional(Type.Boolean())
}, open)
const CapabilityMap = Type.Record(Type.String(), JsonObject)

/** `capabilities` in a legacy (2024-11-05 .. 2025-11-25) `initialize` result. */
export const LegacyServerCapabilities = Type.Object({
  tools: Type.Optional(ListChanged),
  resources: Type.Optional(ResourcesCapability),
  prompts: Type.Optional(ListChanged),
  completions: Type.Optional(JsonObject),
  logging: Type.Optional(JsonObject),
  experimental: Type.Optional(CapabilityMap)
}, open)
export type LegacyServerCapabilities = Static<typeof LegacyServerCapabilities>

/** `capabilities` in a modern (2026-07-28) `server/discover` result. */
export const ModernServerCapabilities = Type.Object({
  tools: Type.Optional(ListChanged),
  resources: Type.Optional(ResourcesCapability),
  prompts: Type.Optional(ListChanged),
  completions: Type.Optional(JsonObject),
  logging: Type.Optional(JsonObject),
  experimental: Type.Optional(CapabilityMap),
  extensions: Type.Optional(CapabilityMap)
}, open)
export type ModernServerCapabilities = Static<typeof ModernServerCapabilities>

/** What a client declares (either era's known keys; open like the spec). */
export const ClientCapabilities = Type.Object({
  roots: Type.Optional(Type.Object({ listChanged: Type.Optional(Type.Boolean()) }, open)),
  sampling: Type.Optional(Type.Object({
    context: Type.Optional(JsonObject),
    tools: Type.Optional(JsonObject)
  }, open)),
  elicitation: Type.Optional(Type.Object({
    form: Type.Optional(JsonObject),
    url: Type.Optional(JsonObject)
  }, open)),
  experimental: Type.Optional(CapabilityMap),
  extensions: Type.Optional(CapabilityMap)
}, open)
export type ClientCapabilities = Static<typeof ClientCapabilities>

// ---------------------------------------------------------------------------
// Legacy handshake

export const InitializeRequestParams = Type.Object({
  protocolVersion: Type.String(),
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
  _meta: Type.Optional(JsonObject)
}, open)
export type InitializeRequestParams = Static<typeof InitializeRequestParams>

export const InitializeRequest = Type.Object({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  method: Type.Literal('initialize'),
  params: InitializeRequestParams
}, open)
export type InitializeRequest = Static<typeof InitializeRequest>

export const InitializeResult = Type.Object({
  protocolVersion: Type.String(),
  capabilities: LegacyServerCapabilities,
  serverInfo: Implementation,
  instructions: Type.Optional(Type.String()),
  _meta: Type.Optional(JsonObject)
}, open)
export type InitializeResult = Static<typeof InitializeResult>

/** Serializer schema for the `initialize` response. */
export const InitializeResponse = ResultResponseOf(InitializeResult)
export type InitializeResponse = Static<typeof InitializeResponse>

// ---------------------------------------------------------------------------
// Modern (2026-07-28)

export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion'
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities'
export const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo'
export const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel'

/** Severity of a log message (RFC 5424 names). */
export const LoggingLevel = Type.Union([
  Type.Literal('debug'), Type.Literal('info'), Type.Literal('notice'), Type.Literal('warning'),
  Type.Literal('error'), Type.Literal('critical'), Type.Literal('alert'), Type.Literal('emergency')
])
export type LoggingLevel = Static<typeof LoggingLevel>

/** `params._meta` of every modern request. */
export const ModernRequestMeta = Type.Object({
  [PROTOCOL_VERSION_META]: Type.String(),
  [CLIENT_CAPABILITIES_META]: ClientCapabilities,
  [CLIENT_INFO_META]: Type.Optional(Implementation),
  [LOG_LEVEL_META]: Type.Optional(LoggingLevel)
}, open)
export type ModernRequestMeta = Static<typeof ModernRequestMeta>

export const DiscoverRequest = Type.Object({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  method: Type.Literal('server/discover'),
  params: Type.Object({ _meta: ModernRequestMeta }, open)
}, open)
export type DiscoverRequest = Static<typeof DiscoverRequest>

/** `_meta` of every modern result. */
export const ResultMeta = Type.Object({
  [SERVER_INFO_META]: Type.Optional(Implementation)
}, open)
export type ResultMeta = Static<typeof ResultMeta>

export const DiscoverResult = Type.Object({
  // a discover result is never `input_required`
  resultType: Type.Literal('complete'),
  supportedVersions: Type.Array(Type.String()),
  capabilities: ModernServerCapabilities,
  instructions: Type.Optional(Type.String()),
  ttlMs: Type.Integer({ minimum: 0 }),
  cacheScope: CacheScope,
  _meta: Type.Optional(ResultMeta)
}, open)
export type DiscoverResult = Static<typeof DiscoverResult>

/** Serializer schema for the `server/discover` response. */
export const DiscoverResponse = ResultResponseOf(DiscoverResult)
export type DiscoverResponse = Static<typeof DiscoverResponse>

/** -32020: an HTTP header is missing or disagrees with the body (HTTP 400). */
export const HeaderMismatchError = ErrorResponseOf(Type.Object({
  code: Type.Literal(-32020),
  message: Type.String(),
  data: Type.Optional(Type.Unknown())
}, open))
export type HeaderMismatchError = Static<typeof HeaderMismatchError>

/** -32021: the request lacks client capabilities the handler needs (HTTP 400). */
export const MissingRequiredClientCapabilityError = ErrorResponseOf(Type.Object({
  code: Type.Literal(-32021),
  message: Type.String(),
  data: Type.Object({ requiredCapabilities: ClientCapabilities }, open)
}, open))
export type MissingRequiredClientCapabilityError = Static<typeof MissingRequiredClientCapabilityError>

/** -32022: the requested protocol version is not served (HTTP 400). */
export const UnsupportedProtocolVersionError = ErrorResponseOf(Type.Object({
  code: Type.Literal(-32022),
  message: Type.String(),
  data: Type.Object({
    supported: Type.Array(Type.String()),
    requested: Type.String()
  }, open)
}, open))
export type UnsupportedProtocolVersionError = Static<typeof UnsupportedProtocolVersionError>

// ---------------------------------------------------------------------------
// Features: what handlers receive and return (tools, prompts, resources,
// completion). A handler returns its result without the envelope fields the
// endpoint adds (`resultType`, `_meta.serverInfo`, cache hints), so those are
// optional here; a field newer revisions added is optional too.

export const Role = Type.Union([Type.Literal('user'), Type.Literal('assistant')])
export type Role = Static<typeof Role>

export const Annotations = Type.Object({
  audience: Type.Optional(Type.Array(Role)),
  priority: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  lastModified: Type.Optional(Type.String())
}, open)
export type Annotations = Static<typeof Annotations>

const common = {
  annotations: Type.Optional(Annotations),
  _meta: Type.Optional(JsonObject)
}

export const TextContent = Type.Object({ type: Type.Literal('text'), text: Type.String(), ...common }, open)
export type TextContent = Static<typeof TextContent>

export const ImageContent = Type.Object({ type: Type.Literal('image'), data: Type.String(), mimeType: Type.String(), ...common }, open)
export type ImageContent = Static<typeof ImageContent>

export const AudioContent = Type.Object({ type: Type.Literal('audio'), data: Type.String(), mimeType: Type.String(), ...common }, open)
export type AudioContent = Static<typeof AudioContent>

export const TextResourceContents = Type.Object({
  uri: Type.String(),
  mimeType: Type.Optional(Type.String()),
  text: Type.String(),
  _meta: Type.Optional(JsonObject)
}, open)
export type TextResourceContents = Static<typeof TextResourceContents>

export const BlobResourceContents = Type.Object({
  uri: Type.String(),
  mimeType: Type.Optional(Type.String()),
  blob: Type.String(),
  _meta: Type.Optional(JsonObject)
}, open)
export type BlobResourceContents = Static<typeof BlobResourceContents>

export const ResourceContents = Type.Union([TextResourceContents, BlobResourceContents])
export type ResourceContents = Static<typeof ResourceContents>

export const EmbeddedResource = Type.Object({ type: Type.Literal('resource'), resource: ResourceContents, ...common }, open)
export type EmbeddedResource = Static<typeof EmbeddedResource>

/** What a resource is: shared by `Resource` and `ResourceLink`. */
const resourceFields = {
  uri: Type.String(),
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
  size: Type.Optional(Type.Integer({ minimum: 0 })),
  icons: Type.Optional(Type.Array(Icon)),
  ...common
}

export const ResourceLink = Type.Object({ type: Type.Literal('resource_link'), ...resourceFields }, open)
export type ResourceLink = Static<typeof ResourceLink>

export const ContentBlock = Type.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
export type ContentBlock = Static<typeof ContentBlock>

/** Fields any result may carry besides its own: the endpoint fills in what is missing. */
const resultFields = {
  _meta: Type.Optional(JsonObject),
  resultType: Type.Optional(Type.String())
}
/** Cache hints a list or read result may set for itself (modern era). */
const cacheFields = {
  ttlMs: Type.Optional(Type.Integer({ minimum: 0 })),
  cacheScope: Type.Optional(CacheScope)
}

const paginated = {
  cursor: Type.Optional(Type.String()),
  _meta: Type.Optional(JsonObject)
}
const listResultFields = { nextCursor: Type.Optional(Type.String()), ...resultFields, ...cacheFields }

/** Params of the list methods (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`). */
export const PaginatedParams = Type.Object(paginated, open)
export type PaginatedParams = Static<typeof PaginatedParams>

// ---------------------------------------------------------------------------
// Tools

export const ToolAnnotations = Type.Object({
  title: Type.Optional(Type.String()),
  readOnlyHint: Type.Optional(Type.Boolean()),
  destructiveHint: Type.Optional(Type.Boolean()),
  idempotentHint: Type.Optional(Type.Boolean()),
  openWorldHint: Type.Optional(Type.Boolean())
}, open)
export type ToolAnnotations = Static<typeof ToolAnnotations>

export const Tool = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  inputSchema: Type.Object({ type: Type.Literal('object') }, open),
  outputSchema: Type.Optional(Type.Object({}, open)),
  annotations: Type.Optional(ToolAnnotations),
  icons: Type.Optional(Type.Array(Icon)),
  _meta: Type.Optional(JsonObject)
}, open)
export type Tool = Static<typeof Tool>

export const ListToolsResult = Type.Object({ tools: Type.Array(Tool), ...listResultFields }, open)
export type ListToolsResult = Static<typeof ListToolsResult>

export const CallToolParams = Type.Object({
  name: Type.String(),
  arguments: Type.Optional(JsonObject),
  _meta: Type.Optional(JsonObject)
}, open)
export type CallToolParams = Static<typeof CallToolParams>

export const CallToolResult = Type.Object({
  content: Type.Array(ContentBlock),
  structuredContent: Type.Optional(JsonObject),
  isError: Type.Optional(Type.Boolean()),
  ...resultFields
}, open)
/**
 * `CallToolResult` as 2026-07-28 has it: `structuredContent` may be any JSON value (legacy revisions want an object).
 * Written out rather than `Type.Composite([Type.Omit(...), ...])`, which gives the same schema but costs every
 * import of the package about half a millisecond (test/schemas.test.ts holds the two equal).
 */
export const ModernCallToolResult = Type.Object({
  content: CallToolResult.properties.content,
  isError: CallToolResult.properties.isError,
  ...resultFields,
  structuredContent: Type.Optional(Type.Unknown())
}, open)
export type CallToolResult = Static<typeof CallToolResult>

// ---------------------------------------------------------------------------
// Prompts

export const PromptArgument = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean())
}, open)
export type PromptArgument = Static<typeof PromptArgument>

export const Prompt = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.Array(PromptArgument)),
  icons: Type.Optional(Type.Array(Icon)),
  _meta: Type.Optional(JsonObject)
}, open)
export type Prompt = Static<typeof Prompt>

export const ListPromptsResult = Type.Object({ prompts: Type.Array(Prompt), ...listResultFields }, open)
export type ListPromptsResult = Static<typeof ListPromptsResult>

export const GetPromptParams = Type.Object({
  name: Type.String(),
  arguments: Type.Optional(Type.Record(Type.String(), Type.String())),
  _meta: Type.Optional(JsonObject)
}, open)
export type GetPromptParams = Static<typeof GetPromptParams>

export const PromptMessage = Type.Object({ role: Role, content: ContentBlock }, open)
export type PromptMessage = Static<typeof PromptMessage>

export const GetPromptResult = Type.Object({
  description: Type.Optional(Type.String()),
  messages: Type.Array(PromptMessage),
  ...resultFields
}, open)
export type GetPromptResult = Static<typeof GetPromptResult>

// ---------------------------------------------------------------------------
// Resources

export const Resource = Type.Object(resourceFields, open)
export type Resource = Static<typeof Resource>

export const ResourceTemplate = Type.Object({
  uriTemplate: Type.String(),
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
  icons: Type.Optional(Type.Array(Icon)),
  ...common
}, open)
export type ResourceTemplate = Static<typeof ResourceTemplate>

export const ListResourcesResult = Type.Object({ resources: Type.Array(Resource), ...listResultFields }, open)
export type ListResourcesResult = Static<typeof ListResourcesResult>

export const ListResourceTemplatesResult = Type.Object({ resourceTemplates: Type.Array(ResourceTemplate), ...listResultFields }, open)
export type ListResourceTemplatesResult = Static<typeof ListResourceTemplatesResult>

export const ReadResourceParams = Type.Object({ uri: Type.String(), _meta: Type.Optional(JsonObject) }, open)
export type ReadResourceParams = Static<typeof ReadResourceParams>

export const ReadResourceResult = Type.Object({ contents: Type.Array(ResourceContents), ...resultFields, ...cacheFields }, open)
export type ReadResourceResult = Static<typeof ReadResourceResult>

// ---------------------------------------------------------------------------
// Completion

export const PromptReference = Type.Object({ type: Type.Literal('ref/prompt'), name: Type.String(), title: Type.Optional(Type.String()) }, open)
export type PromptReference = Static<typeof PromptReference>

export const ResourceTemplateReference = Type.Object({ type: Type.Literal('ref/resource'), uri: Type.String() }, open)
export type ResourceTemplateReference = Static<typeof ResourceTemplateReference>

export const CompleteParams = Type.Object({
  ref: Type.Union([PromptReference, ResourceTemplateReference]),
  argument: Type.Object({ name: Type.String(), value: Type.String() }, open),
  context: Type.Optional(Type.Object({ arguments: Type.Optional(Type.Record(Type.String(), Type.String())) }, open)),
  _meta: Type.Optional(JsonObject)
}, open)
export type CompleteParams = Static<typeof CompleteParams>

export const CompleteResult = Type.Object({
  completion: Type.Object({
    values: Type.Array(Type.String(), { maxItems: 100 }),
    total: Type.Optional(Type.Integer({ minimum: 0 })),
    hasMore: Type.Optional(Type.Boolean())
  }, open),
  ...resultFields
}, open)
export type CompleteResult = Static<typeof CompleteResult>

// ---------------------------------------------------------------------------
// Legacy-only methods

export const SubscribeParams = Type.Object({ uri: Type.String(), _meta: Type.Optional(JsonObject) }, open)
export type SubscribeParams = Static<typeof SubscribeParams>

export const SetLevelParams = Type.Object({
  level: Type.Union([
    Type.Literal('debug'), Type.Literal('info'), Type.Literal('notice'), Type.Literal('warning'),
    Type.Literal('error'), Type.Literal('critical'), Type.Literal('alert'), Type.Literal('emergency')
  ]),
  _meta: Type.Optional(JsonObject)
}, open)
export type SetLevelParams = Static<typeof SetLevelParams>

/** `{}`: what subscribe, unsubscribe and setLevel answer. */
export const EmptyResult = Type.Object({ ...resultFields }, open)
export type EmptyResult = Static<typeof EmptyResult>

// ---------------------------------------------------------------------------
// The Skills extension (io.modelcontextprotocol/skills): skills/list, skills/get, resources/directory/read

/** One file of a skill's manifest: its URI, the SHA-256 of the bytes served (`sha256:` and 64 lowercase hex digits), their length. */
export const SkillResource = Type.Object({
  uri: Type.String(),
  digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }),
  size: Type.Integer({ minimum: 0 })
}, open)
export type SkillResource = Static<typeof SkillResource>

/** A skill's entry: its SKILL.md URI, the frontmatter as written, every file (or `"dynamic"`). */
export const Skill = Type.Object({
  uri: Type.String(),
  frontmatter: Type.Object({ name: Type.String(), description: Type.String() }, open),
  resources: Type.Union([Type.Array(SkillResource), Type.Literal('dynamic')])
}, open)
export type Skill = Static<typeof Skill>

export const ListSkillsResult = Type.Object({ skills: Type.Array(Skill), ...listResultFields }, open)
export type ListSkillsResult = Static<typeof ListSkillsResult>

export const GetSkillParams = Type.Object({ uri: Type.String(), _meta: Type.Optional(JsonObject) }, open)
export type GetSkillParams = Static<typeof GetSkillParams>

export const GetSkillResult = Type.Object({ skill: Skill, ...resultFields, ...cacheFields }, open)
export type GetSkillResult = Static<typeof GetSkillResult>

export const ReadResourceDirectoryParams = Type.Object({ uri: Type.String(), ...paginated }, open)
export type ReadResourceDirectoryParams = Static<typeof ReadResourceDirectoryParams>

/** The direct children of a directory resource: files, and folders as `mimeType: "inode/directory"`. */
export const ReadResourceDirectoryResult = Type.Object({ resources: Type.Array(Resource), nextCursor: Type.Optional(Type.String()), ...resultFields }, open)
export type ReadResourceDirectoryResult = Static<typeof ReadResourceDirectoryResult>
