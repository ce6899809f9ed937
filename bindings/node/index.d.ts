// Types of the `runstart` Node binding. Shapes follow upstream's wire types field for field
// (kindgi-sdk `@kindgi/capabilities`, `@kindgi/tools`, `@kindgi/agents`; see
// shared/spec/router.md §1, agents.md §1.2 and §3, flows.md §3).

// ---------------------------------------------------------------------------------------
// Routing (router.md §1)

export type Feature =
  | 'structured-output'
  | 'vision'
  | 'audio-input'
  | 'audio-output'
  | 'tool-use'
  | 'parallel-tool-use'
  | 'thinking'
  | 'long-context'
  | 'code-execution'
  | 'web-search'
  | 'file-search'
  | 'streaming'
  | 'batch';

/** Built-in kinds are `llm-inference` (the default), `embedding`, `gpu-compute`, `sandbox-exec`, `browser-session`; kinds are open. */
export type CapabilityKind = string;
export type ComparisonOp = '>=' | '>' | '=' | '<=' | '<';
export type UpperBoundOp = '<=' | '<';

export interface ModelCost {
  readonly promptUsdPer1kTokens: number;
  readonly completionUsdPer1kTokens: number;
}

export interface ModelThinking {
  readonly mode?: 'none' | 'budget' | 'effort' | string;
  readonly [key: string]: unknown;
}

export interface ModelInfo {
  readonly name: string;
  readonly contextWindow: number;
  readonly features: readonly string[];
  readonly cost: ModelCost;
  readonly p95LatencyMs?: number;
  readonly description?: string;
  readonly thinking?: ModelThinking;
  readonly sampling?: boolean;
  readonly [key: string]: unknown;
}

export interface ProviderMetadata {
  readonly id: string;
  readonly region: string;
  readonly models: readonly ModelInfo[];
  readonly capabilityKind?: CapabilityKind;
  readonly attributes?: readonly string[];
  readonly defaultModel?: string;
  readonly fallback?: boolean;
  readonly labels?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

/** Upstream's `ModelProvider`: the metadata plus whatever the caller's adapter carries (`invoke`, …). */
export interface ModelProvider {
  readonly metadata: ProviderMetadata;
  readonly [key: string]: unknown;
}

export interface AllowDeny {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

/** One hard constraint; the first present key decides its kind (router.md §1.4). */
export type Requirement =
  | { readonly feature: string }
  | { readonly contextWindow: { readonly op: ComparisonOp; readonly value: number } }
  | { readonly costPerCall: { readonly op: ComparisonOp; readonly usd: number } }
  | { readonly region: string }
  | { readonly p95LatencyMs: { readonly op: UpperBoundOp; readonly value: number } }
  | { readonly providers: AllowDeny }
  | { readonly models: AllowDeny };

export interface Preference {
  readonly feature: string;
  readonly weight: number;
}

export interface Budget {
  readonly maxCostUsd?: number;
  readonly maxTokens?: number;
  readonly maxDurationMs?: number;
  readonly [key: string]: unknown;
}

export interface Capability {
  readonly kind?: CapabilityKind;
  readonly needs: readonly Requirement[];
  readonly prefer?: readonly Preference[];
  readonly budget?: Budget;
  readonly [key: string]: unknown;
}

export interface TenantPolicy {
  readonly tenantId?: string;
  readonly providers?: AllowDeny;
  readonly models?: AllowDeny;
  readonly regionAllow?: readonly string[];
  readonly maxCostPerCallUsd?: number;
  readonly maxTokensPerCall?: number;
  readonly [key: string]: unknown;
}

/** A `RouteInput` without its providers: what `RouteTable.route` takes. */
export interface RouteRequest {
  readonly capability: Capability;
  readonly tenantPolicy?: TenantPolicy;
  readonly preferredProvider?: string;
  readonly preferredModel?: string;
}

/** Upstream's `RouteInput` (router.md §1.6). */
export interface RouteInput extends RouteRequest {
  readonly providers: readonly ModelProvider[];
}

export interface ProviderModelPick<P> {
  readonly provider: P;
  readonly model: ModelInfo;
}

export interface RoutingDecision<P> {
  readonly provider: P;
  readonly model: ModelInfo;
  /** Upstream's exact text, e.g. `picked "a"/"m", satisfies 2 constraint(s)`. */
  readonly reason: string;
  /** The other candidates, ranked, the pick excluded. */
  readonly alternates: readonly ProviderModelPick<P>[];
  readonly fallback: boolean;
}

/** Every variant has `code` and `message` (router.md §1.9). */
export interface RejectionReason {
  readonly code:
    | 'capability-kind-mismatch'
    | 'missing-feature'
    | 'context-window-mismatch'
    | 'cost-exceeds-cap'
    | 'region-mismatch'
    | 'p95-latency-unknown'
    | 'p95-latency-exceeds'
    | 'provider-on-denylist'
    | 'provider-not-in-allowlist'
    | 'model-on-denylist'
    | 'model-not-in-allowlist'
    | 'tenant-denied'
    | 'tenant-not-allowed'
    | 'tenant-model-denied'
    | 'tenant-model-not-allowed'
    | 'tenant-region-not-allowed'
    | 'tenant-cost-cap-exceeded'
    | 'unknown-requirement'
    | string;
  readonly message: string;
  readonly [field: string]: unknown;
}

export interface CapabilityUnsatisfiableError {
  readonly code: 'capability-unsatisfiable';
  /** Always `No registered provider satisfies the capability declaration`. */
  readonly message: string;
  readonly reasons: readonly {
    readonly requirement: string;
    /** Tuple keys `<providerId>/<modelName>`. */
    readonly satisfyingProviders: readonly string[];
    readonly rejectingProviders: readonly { readonly id: string; readonly reason: RejectionReason }[];
  }[];
  /** Present iff a tenant policy was passed: its `tenantId`. */
  readonly tenantId?: string;
}

/** Upstream's `Result` of `@kindgi/types`. */
export type Result<T, E> = { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'err'; readonly error: E };

export interface RequirementOutcome {
  readonly requirement: string;
  /** Absent when the tuple met the requirement. */
  readonly rejected?: RejectionReason;
}

/** `runstart route --explain --format json`. */
export interface Explanation {
  /** Requirement labels, in evaluation order. */
  readonly requirements: readonly string[];
  /** One entry per tuple, in expansion order. */
  readonly tuples: readonly {
    readonly providerId: string;
    readonly model: string;
    /** One outcome per requirement, in requirement order (kind gate, needs, tenant rules). */
    readonly requirements: readonly RequirementOutcome[];
    readonly survived: boolean;
    readonly fallback: boolean;
    /** The preference score; absent without preferences. */
    readonly score?: number;
    readonly hinted: boolean;
    /** Place in the final order (0 is the pick); null when not a candidate. */
    readonly rank: number | null;
  }[];
  readonly outcome:
    | { readonly ok: { providerId: string; model: string; alternates: [string, string][]; fallback: boolean; reason: string } }
    | { readonly err: CapabilityUnsatisfiableError };
}

export interface RouteTableOptions {
  /** Named in `duplicate-provider` messages; default `default`. */
  readonly tenantId?: string;
}

/**
 * A provider slice compiled once. `route` answers as upstream's `route` on the same slice;
 * `value.provider` and the alternates' providers are the metadata objects given here.
 */
export class RouteTable {
  /** @throws {RunstartError} `invalid-argument` when an entry is not `ProviderMetadata`. */
  constructor(providers?: readonly ProviderMetadata[], options?: RouteTableOptions);
  /** The providers, in slice order (a copy). */
  readonly providers: ProviderMetadata[];
  /** @throws {RunstartError} `invalid-provider` (with `reason`) or `duplicate-provider` (with `providerId`). */
  register(provider: ProviderMetadata): void;
  /** Whether a provider with this id was there. */
  unregister(providerId: string): boolean;
  route(request: RouteRequest): Result<RoutingDecision<ProviderMetadata>, CapabilityUnsatisfiableError>;
  explain(request: RouteRequest): Explanation;
}

/**
 * Upstream's `route(input)`, a drop-in: `value.provider` and the alternates are the caller's
 * `ModelProvider` objects. Each provider object's metadata is read once (by object identity)
 * and each distinct list of providers is compiled once, so treat metadata as immutable (as
 * upstream documents it): register a new provider object to change it.
 */
export function route(input: RouteInput): Result<RoutingDecision<ModelProvider>, CapabilityUnsatisfiableError>;

// ---------------------------------------------------------------------------------------
// Versions (agents.md §1.2)

export type VersionPick =
  | { readonly kind: 'ok'; readonly version: string }
  | { readonly kind: 'invalid-range' }
  | { readonly kind: 'not-satisfiable' };

/** The highest version `range` allows (npm's prerelease rule); without a range, the latest, prereleases included. */
export function pickVersion(available: readonly string[], range?: string): VersionPick;
/** npm `semver.validRange`: the normalized range, or null when it is not a range. */
export function validRange(range: string): string | null;

// ---------------------------------------------------------------------------------------
// Instructions (agents.md §3)

export interface PromptParameter {
  readonly name: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly [key: string]: unknown;
}

export interface PromptRef {
  readonly prompt: string;
  readonly version: string;
}

/** The parts of upstream's `Agent` that rendering reads. */
export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly instructions: string | PromptRef;
  readonly parameters?: readonly PromptParameter[];
  readonly [key: string]: unknown;
}

export interface PromptBlockContent {
  readonly template: string;
  readonly parameters?: readonly PromptParameter[];
  readonly [key: string]: unknown;
}

export interface RenderContext {
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly conversation?: { readonly id: string; readonly turn: number };
  readonly input?: unknown;
  readonly settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The render clock; default `() => new Date()`. */
  readonly clock?: () => Date;
}

export interface RenderResult {
  readonly rendered: string;
  /** Parameters plus auto-variables: what the template was rendered against. */
  readonly context: Readonly<Record<string, unknown>>;
}

export interface MissingParameterError {
  readonly code: 'missing-parameter';
  readonly message: string;
  readonly parameterName?: string;
}

export interface RenderFailureError {
  readonly code: 'render-failure';
  readonly message: string;
  /** An `Error` with the template engine's message, or null when no template was loaded. */
  readonly cause: unknown;
}

export type PromptRenderError = MissingParameterError | RenderFailureError;

export function renderInstructions(
  agent: Agent,
  context: RenderContext,
  prompt?: PromptBlockContent,
): { readonly ok: true; readonly value: RenderResult } | { readonly ok: false; readonly error: PromptRenderError };

// ---------------------------------------------------------------------------------------
// Pack indexes (flows.md §3)

export interface Issue {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  /** RFC 6901 JSON Pointer into the index. */
  readonly instancePath: string;
  readonly schemaPath?: string;
  readonly keyword?: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** `runstart validate --format json` for one file, without `file`. */
export interface ValidationReport {
  readonly errors: number;
  readonly warnings: number;
  /** By JSON Pointer (whole-file issues first), then code. */
  readonly issues: readonly Issue[];
}

export interface ValidateOptions {
  /** Warn `non-canonical-index` when the bytes are not what an indexer writes; default true. */
  readonly checkCanonicalForm?: boolean;
}

export type IndexBytes = Uint8Array | ArrayBuffer | ArrayBufferView | string;

/** Validates off the JavaScript thread. Misuse rejects the promise. */
export function validateIndex(index: IndexBytes, options?: ValidateOptions): Promise<ValidationReport>;
export function validateIndexSync(index: IndexBytes, options?: ValidateOptions): ValidationReport;
/** `sha256:<hex>` of the bytes: the hash a deployment signs. */
export function indexHash(index: IndexBytes): string;

// ---------------------------------------------------------------------------------------
// Run start (agents.md §1.4, §3, §4.4; router.md §2.14)

export interface RunRequest {
  readonly tenantId: string;
  /** Without `version`, the highest registered version. */
  readonly agent: { readonly id: string; readonly version?: string };
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly input?: unknown;
  readonly conversation?: { readonly id: string; readonly turn: number };
  /** A resumed turn's journaled versions and route. */
  readonly pins?: {
    readonly toolVersions?: Readonly<Record<string, string>>;
    readonly blockVersions?: Readonly<Record<string, string>>;
    readonly providerId?: string;
    readonly model?: string;
  };
  /** Merged with the tenant's registered policy. */
  readonly tenantPolicy?: TenantPolicy;
  /** ISO 8601 UTC with milliseconds; default the clock. */
  readonly now?: string;
}

export interface PlannedRoute {
  readonly kind: string;
  readonly providerId: string;
  readonly model: string;
  /** `[providerId, model]` pairs, best first. */
  readonly alternates: readonly [string, string][];
  readonly fallback: boolean;
  readonly reason: string;
}

/** Everything the runtime journals when a run starts (`runstart plan`). */
export interface RunPlan {
  readonly agentId: string;
  readonly agentVersion: string;
  /** In the agent's declaration order. */
  readonly tools: readonly { readonly id: string; readonly version: string; readonly requestedRange: string }[];
  readonly toolVersions: Readonly<Record<string, string>>;
  readonly blockVersions: Readonly<Record<string, string>>;
  /** Guardrail ids that run, in the agent's order. */
  readonly guardrails: readonly string[];
  /** The model settings block's values, when the agent references one. */
  readonly modelSettings?: Readonly<Record<string, unknown>>;
  /** The run's model: the first `llm-inference` capability's decision. */
  readonly route: PlannedRoute;
  /** Every capability's decision, in declaration order. */
  readonly capabilities: readonly PlannedRoute[];
  readonly instructions: string;
  /** E.g. `fallback-provider`. */
  readonly warnings: readonly string[];
}

/** Upstream's turn errors (agents.md §1.4, §3.4, §4.4; router.md §2.14). */
export interface RunStartError {
  readonly code:
    | 'agent-not-found'
    | 'unresolved-guardrail'
    | 'unresolved-tool'
    | 'tool-version-unresolvable'
    | 'block-unresolvable'
    | 'capability-routing-failed'
    | 'missing-parameter'
    | 'render-failure'
    | 'invalid-request'
    | string;
  readonly message: string;
  readonly [field: string]: unknown;
}

export class RunStart {
  constructor();
  /** The same registry as the `RunStart` whose `shareId` this is, from any thread of the process. @throws {RunstartError} `unknown-share-id` */
  static attach(shareId: number): RunStart;
  /** Names this registry for `RunStart.attach` (e.g. from a worker thread). */
  readonly shareId: number;
  /**
   * Registers a pack index (its bytes, text or parsed object).
   * @throws {RunstartError} `invalid-index` or `pack-not-registered`, each with `issues: Issue[]`.
   */
  registerPack(tenantId: string, index: IndexBytes | object): void;
  /** @throws {RunstartError} `invalid-provider` (with `reason`) or `duplicate-provider` (with `providerId`). */
  registerProvider(tenantId: string, provider: ProviderMetadata | ModelProvider): void;
  unregisterProvider(tenantId: string, providerId: string): boolean;
  /** Sets the tenant's registered routing policy, or clears it with undefined/null. */
  setTenantPolicy(tenantId: string, policy: TenantPolicy | undefined | null): void;
  /** Ranges no longer pick the version; pins still reach it. Whether it was registered. */
  retireTool(tenantId: string, toolId: string, version: string): boolean;
  /** Gone entirely: pins to it fail. Whether it was registered. */
  removeTool(tenantId: string, toolId: string, version: string): boolean;
  prepare(request: RunRequest): Result<RunPlan, RunStartError>;
}

// ---------------------------------------------------------------------------------------
// Errors

/**
 * What the binding throws: misuse (`invalid-argument`, a `TypeError`), a refused
 * registration (`invalid-provider`, `duplicate-provider`, `invalid-index`,
 * `pack-not-registered`, `unknown-share-id`), or `internal` (a Rust panic, caught: the
 * process goes on). Expected outcomes are never thrown.
 */
export interface RunstartError extends Error {
  readonly code: string;
  readonly [field: string]: unknown;
}
