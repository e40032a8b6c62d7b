/**
 * TypeBox schemas of the feature messages handlers exchange (tools, prompts,
 * resources, completion), with their static types: what a handler receives
 * and returns, defined once, typed and validated from here. Open objects like
 * the spec's; a field newer revisions added is optional.
 *
 * A handler returns the result without the envelope fields the endpoint adds
 * (`resultType`, `_meta.serverInfo`, cache hints), so those are optional here.
 */
import { type Static, Type } from '@sinclair/typebox'
import { CacheScope, Icon, JsonObject } from '../schemas.js'

const open = { additionalProperties: true } as const

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
