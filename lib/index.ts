/** The public surface of fastify-mcp-capabilities. */
import { mcpCapabilities } from './plugin.js'

export { mcpCapabilities }
export default mcpCapabilities
export type { McpCapabilitiesOptions, McpDecorator } from './plugin.js'
export type { ServerInfo, CacheScope, CacheHintOptions, CacheHintsOptions, DeploymentEra, PerRequest, RequestStateOptions, LimitOptions, SecurityOptions, ValidateOptions } from './options.js'
export type { McpHookName, McpHooks, McpOperation, McpCall, McpOperationError, OnRequestHook, PreHandlerHook, OnResultHook, OnErrorHook } from './hooks/types.js'
export type { TelemetryOptions } from './telemetry/telemetry-options.js'

export { TASKS_EXTENSION } from './server-module/capabilities.js'
export { SKILLS_EXTENSION } from './protocol/methods.js'
export { buildCapabilities } from './definitions/module-capabilities.js'
export type { BuildCapabilitiesOptions, BuiltCapabilities, LegacyServerCapabilities, ModernServerCapabilities } from './server-module/capabilities.js'
export { McpError, ErrorCode, resourceNotFound } from './protocol/mcp-error.js'
export { defineTool, defineTools, toolError } from './definitions/tools.js'
export type { DefinedTools, ToolDefinition, ToolArguments, ToolError, ToolReturn } from './definitions/tools.js'
export { definePrompt, definePrompts } from './definitions/prompts.js'
export type { DefinedPrompts, PromptDefinition, PromptArguments, PromptReturn } from './definitions/prompts.js'
export { defineResource, defineResources } from './definitions/resources.js'
export type { LiveDefinitions, LiveTools, LivePrompts, LiveResources, LiveSkills } from './definitions/live.js'
export type { NamedChange, NamedChanges, NamedChangeTarget } from './definitions/shared-catalog.js'
export { defineSkill, defineSkills } from './definitions/skills.js'
export type { DefinedSkills, DynamicSkillContent, SkillDefinition, SkillFileContent, SkillFolderOptions, SkillFrontmatter } from './definitions/skills.js'
export type { DefinedResources, ResourceDefinition, ReadReturn } from './definitions/resources.js'
export type { Completer, CompletionContext } from './definitions/completion.js'
export type { Checked, FromJsonSchema, Infer, InferObject, InferReturn, JsonObjectSchema, JsonSchema, ObjectSchema, StandardJsonSchema, TypeBoxLegacySchema, ValibotSchema } from './definitions/schema-types.js'
export { audioContent, embeddedResource, imageContent, resourceLink, textContent } from './definitions/content.js'
export type { BinaryData, ContentExtras, EmbeddedContents, ResourceLinkFields } from './definitions/content.js'
export type { TemplateVariables, TemplateVariableNames } from './definitions/uri-template.js'
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolParams,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  ContentBlock,
  EmbeddedResource,
  EmptyResult,
  GetPromptParams,
  GetPromptResult,
  GetSkillParams,
  GetSkillResult,
  ImageContent,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListSkillsResult,
  ListToolsResult,
  PaginatedParams,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceDirectoryParams,
  ReadResourceDirectoryResult,
  ReadResourceParams,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceLink,
  ResourceTemplate,
  SetLevelParams,
  Skill,
  SkillResource,
  SubscribeParams,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations
} from './protocol/schemas.js'
export { inputRequired, InputRequiredSignal } from './input/client-requests.js'
export type {
  ClientRequestOptions,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ClientRequestMethod,
  InputRequest,
  InputRequiredResult,
  ListRootsResult,
  Root,
  SamplingMessage
} from './protocol/client-request-wire.js'
export type { CapabilityName, Era, HandlerName, ListMeta, MethodTable, ModuleMethodName, ModuleMethodOf, Target } from './protocol/methods.js'
export type { JsonObject } from './protocol/jsonrpc.js'
export type { ServerModule, CapabilitiesOption, AnyServerModule, HandlerSignatures, TaskCreatedResult, Handler, HandlerContext, CapabilitiesDeclaration, ClientInfo } from './server-module/contract.js'
export { MODERN_VERSIONS, LEGACY_VERSIONS } from './protocol/versions.js'
export { LOG_LEVELS } from './protocol/log-level.js'
export type { LogLevel } from './protocol/log-level.js'
export type { SubscriptionFilter } from './streams/subscriptions.js'
export type { ParamHeaderMode, ListenOptions } from './options.js'
export { canRunAsTask, runAsTask } from './tasks/run-as-task.js'
export type { RunAsTaskOptions } from './tasks/run-as-task.js'
export type { TaskOwner } from './tasks/service.js'
export type { TaskOptions } from './options.js'
export { MemoryTaskStore } from './parts/task-store.js'
export type {
  AnswerOutcome,
  AskOutcome,
  AskRefusal,
  Change,
  CreateOutcome,
  CreateRefusal,
  StoredTask,
  TaskLimits,
  TaskStatus,
  TaskStore,
  TaskStoreFactory
} from './parts/task-store.js'
export type { AuthorizationOptions, AccessTokenVerifier, JwtOptions } from './auth/authorization-options.js'
export type { AuthInfo } from './server-module/auth-info.js'
export type { VerifiedAccessToken } from './auth/verified-token.js'
export { InvalidTokenError } from './auth/verified-token.js'
export { authInfoOf } from './auth/request-token.js'
export type { ProtectedResourceMetadata } from './auth/protected-resource-metadata.js'
export { REQUIRED_SCOPES } from './server-module/scopes.js'
export type { ScopeRequirement } from './server-module/scopes.js'
export * as errors from './errors.js'
export type { CodedErrorConstructor } from './errors.js'
export * as schemas from './protocol/schemas.js'
export { parseDiscoverResult, parseImplementation } from './protocol/discover-result.js'
export type { ParsedDiscoverResult, DiscoverResultParse, DiscoverResultError, ServerIcon } from './protocol/discover-result.js'
export { MemoryEventBus, isMcpEvent } from './parts/event-bus.js'
export { MemoryCatalogStore, MAX_CATALOG_RECORDS } from './parts/catalog-store.js'
export type { CatalogStore, CatalogChange, RecordedChange } from './parts/catalog-store.js'
export type { EventBus, McpEvent, McpEventListener, ListName } from './parts/event-bus.js'
export { MemoryAnswerRouter } from './parts/answer-router.js'
export type { AnswerRouter, AnswerReceiver } from './parts/answer-router.js'
export type { ScaleOptions, SessionOptions } from './options.js'
export type { RoutesOptions, RouteToolOptions } from './routes/routes-option.js'
export type { McpRouteToolRequest } from './routes/inner-request.js'
export { serveStdio } from './stdio/serve-stdio-on-demand.js'
export type { StdioServer } from './stdio/serve-stdio.js'
export type { StdioOptions } from './stdio/stdio-options.js'
export { appTool, appResource, defineAppResources } from './apps/app-definitions.js'
export type { AppCsp, AppPermissions, AppResourceDefinition, AppResourceUi, AppToolDefinition, AppToolUi, DefinedAppResources } from './apps/app-definitions.js'
export { UI_EXTENSION, UI_MIME_TYPE, clientSupportsUi } from './apps/ui-extension.js'
export type { AppVisibility } from './apps/ui-extension.js'
export { OFFERED_EXTENSIONS } from './server-module/capabilities.js'
// Types reachable from the public ones above (a consumer can name whatever it is handed).
export type { DefinitionChange, DefinitionList } from './parts/event-bus.js'
export type { SessionLimits, SessionRecord, SessionStore } from './parts/session-store.js'
export type { ToolErrorMode } from './handler/tool-errors.js'
export type { VerifiedCaller } from './auth/verified-token.js'
export type { RequestId } from './protocol/jsonrpc.js'
