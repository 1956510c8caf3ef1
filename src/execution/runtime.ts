/** @module Wires one running codemux: config -> upstream registry + sandbox pool -> execution service. */

import { randomBytes } from 'node:crypto';
import { Catalog } from '../catalog/index.ts';
import { CodeTools } from '../codetools/index.ts';
import { OAUTH_CALLBACK_PATH } from '../config/defaults.ts';
import { maxUpstreamMessageBytes, type ResolvedConfig } from '../config/index.ts';
import { SandboxPool } from '../sandbox/index.ts';
import {
  type ActivityStore,
  type ApprovalStore,
  type CodeToolStore,
  type ExecutionRunStore,
  memoryApprovalStore,
  type OAuthStore,
  type RunJournalStore,
  type ToolPinStore,
} from '../store/index.ts';
import { metrics } from '../telemetry/metrics.ts';
import {
  TYPECHECK_DEFAULTS,
  TypeChecker,
  type TypeCheckerOptions,
  typecheckWorkerUrl,
} from '../typecheck/index.ts';
import { type ClusterSlots, UpstreamOAuth, UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { SECRET_KEY_BYTES, SecretBox } from '../util/secret-box.ts';
import { ActivityLog } from './activity/log.ts';
import { ActivityRecorder } from './activity/recorder.ts';
import { catalogEntries } from './catalog-entries.ts';
import { CodeModeService } from './code-mode-service.ts';
import { DrainingExecutor } from './drain.ts';
import { metricsSources } from './metrics-sources.ts';
import { Approvals } from './policy/approvals.ts';
import { HeldRuns } from './policy/held-runs.ts';
import { InputRequests } from './policy/input-requests.ts';
import { resumeRun } from './runs/resume-run.ts';
import { Runs } from './runs/runs.ts';
import { StoreRuns } from './runs/shared-runs.ts';
import { ExecutionService } from './service.ts';
import { ToolPins } from './tool-pins.ts';

export interface Runtime {
  config: () => ResolvedConfig;
  /** Applies a reloaded config: servers and code_execution settings (not pool_size). */
  /** `origin` says who changed the file, for the servers' histories ("edited by hand"). */
  applyConfig(next: ResolvedConfig, origin?: string): Promise<void>;
  registry: UpstreamRegistry;
  catalog: Catalog;
  service: ExecutionService;
  /** The execute tool (code mode). */
  execute: CodeModeService;
  /** The type checker of TypeScript programs (its worker starts with the first check). */
  typecheck: TypeChecker;
  /** Code tools, when the runtime has a store for them. */
  codeTools?: CodeTools;
  /** The activity history, when the runtime has a store for it. */
  activity?: ActivityLog;
  /** Tool-definition pins (`tool_pinning`): held tools, approvals. */
  pins: ToolPins;
  /** Calls held under tool_policy `ask`, and their decisions. */
  approvals: Approvals;
  /** Programs held in place on an approval for a caller answered later (input_required). */
  heldRuns: HeldRuns;
  /** Upstreams' requests for input during calls, waiting for an answer. */
  inputs: InputRequests;
  /** Runs that outlive their request: yield, wait, cancel (runs/runs.ts). */
  runs: Runs;
  /**
   * Seals what a client carries between requests (a 2026-07-28 `requestState`): the store's
   * secret key, shared by every instance; without a store, a key of this process alone.
   */
  secretBox: () => SecretBox;
  /** Upstream OAuth (sign-in, tokens), when the runtime has a store for it. */
  oauth?: UpstreamOAuth;
  /** Starts the warm sandbox workers; in live mode also connects every server (not awaited). */
  start(): Promise<void>;
  /**
   * Shutdown, first step: new executions are refused; running ones get `graceMs` to finish,
   * then end with a clear EXECUTION_FAILED.
   */
  drain(graceMs: number): Promise<void>;
  /** Stops workers and upstream children (those still starting too); idempotent. */
  stop(): Promise<void>;
}

export interface RuntimeOptions {
  warmWorkers?: number;
  /** The gateway: connect every server at start and reconnect after drops. */
  live?: boolean;
  /** Where code tools live; without it the runtime offers none. */
  codeToolStore?: CodeToolStore;
  /** Cluster-wide call slots (`cluster_max_concurrent_requests`, PostgreSQL). */
  clusterSlots?: ClusterSlots;
  /** Where executions are recorded; without it nothing is. */
  activityStore?: ActivityStore;
  /** Where tool pins are kept; without it pins live as long as the process. */
  toolPinStore?: ToolPinStore;
  /** Where approvals are kept (shared by instances on PostgreSQL); without it, in memory. */
  approvalStore?: ApprovalStore;
  /** Where yielded runs are written, so other instances answer waits and cancels; without it, none. */
  executionRunStore?: ExecutionRunStore;
  /** Where runs are journaled (code_execution_durable), so a stop does not lose them; without it, none. */
  runJournalStore?: RunJournalStore;
  /** The type checker's bounds (tests lower them); default TYPECHECK_DEFAULTS. */
  typecheck?: Partial<TypeCheckerOptions>;
  /** Where upstream OAuth credentials are kept, and the box that seals them; without it, none. */
  oauth?: { store: OAuthStore; secretBox: () => SecretBox };
}

/** Where an authorization server sends the browser back: this gateway's `/oauth/callback`. */
export function oauthCallbackUrl(config: ResolvedConfig): string {
  const host = config.listenHost;
  const shown =
    host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${config.listenPort}${OAUTH_CALLBACK_PATH}`;
}

export function createRuntime(
  initial: ResolvedConfig,
  logger: Logger,
  options: RuntimeOptions = {},
): Runtime {
  let config = initial;
  const oauth = options.oauth
    ? new UpstreamOAuth({
        store: options.oauth.store,
        secretBox: options.oauth.secretBox,
        logger,
        server: (name) => registry.server(name),
        callbackUrl: () => oauthCallbackUrl(config),
        clientMetadataUrl: () => config.oauthClientMetadataUrl,
      })
    : undefined;
  const registry: UpstreamRegistry = new UpstreamRegistry(config.servers, logger, {
    live: options.live,
    clusterSlots: options.clusterSlots,
    // Read per message: a reloaded result bound applies to connections already open.
    maxMessageBytes: () => maxUpstreamMessageBytes(config),
    // The last check before a call is sent, on the tool list as it is then.
    admit: (server, tool) => pins.refusal(server, tool),
    ...(oauth ? { auth: (server) => oauth.authFor(server) } : {}),
  });
  const pins: ToolPins = new ToolPins(
    registry,
    () => config.toolPinning,
    logger,
    options.toolPinStore,
  );
  const sandbox = new SandboxPool({
    size: config.codeExecution.poolSize,
    warm: options.warmWorkers,
    memoryLimitBytes: config.codeExecution.memoryLimitMb * 1_048_576,
    engine: { onWarning: (message) => logger.warn(message) },
  });
  const pool = new DrainingExecutor(sandbox);
  const current = () => config;
  const catalog = new Catalog({
    entries: () => catalogEntries(registry, pins),
    toolkits: () => config.toolkits,
    // Both only grow: their sum changes whenever either does (an approval changes no tool list).
    version: () => registry.version + pins.version,
    maxSearchResults: () => config.searchMaxResults,
    unavailable: () =>
      registry
        .status()
        .filter((s) => ['connecting', 'failed', 'idle', 'needs_auth'].includes(s.state))
        .map((s) => s.name),
  });
  const recorder = options.activityStore
    ? new ActivityRecorder(options.activityStore, logger, () => ({
        days: config.activity.retentionDays,
        maxRecords: config.activity.maxRecords,
      }))
    : undefined;
  const activity =
    recorder && options.activityStore
      ? new ActivityLog(recorder, options.activityStore)
      : undefined;
  const approvalStore = options.approvalStore ?? memoryApprovalStore();
  const approvals = new Approvals(() => config.instanceId, logger, approvalStore);
  const inputs = new InputRequests(() => config.instanceId, logger);
  // A request no call can be named for (several in flight on stdio): REST, dashboard, CLI.
  registry.onInput = async (server, ask, signal) =>
    (
      await inputs.ask(
        {
          server,
          tool: null,
          ask,
          caller: null,
          activityId: null,
          timeoutMs: config.toolPolicy.approvalTimeoutMs,
        },
        signal,
      )
    ).reply;
  let ownBox: SecretBox | undefined;
  const secretBox =
    options.oauth?.secretBox ??
    (() => {
      ownBox ??= new SecretBox(randomBytes(SECRET_KEY_BYTES));
      return ownBox;
    });
  const heldRuns = new HeldRuns(
    approvalStore,
    () => config.instanceId,
    () => config.toolPolicy.approvalTimeoutMs,
    logger,
  );
  // Started by the first program it checks (its worker then stays warm).
  const typecheck = new TypeChecker(typecheckWorkerUrl(), {
    ...TYPECHECK_DEFAULTS,
    logger,
    ...options.typecheck,
  });
  const deps = {
    config: current,
    registry,
    catalog,
    typecheck,
    executor: pool,
    logger,
    activity: recorder,
    pins,
    approvals,
    inputs,
  };
  const service = new ExecutionService(deps);
  const shared = options.executionRunStore
    ? new StoreRuns({
        store: options.executionRunStore,
        config: current,
        instanceId: () => config.instanceId,
        logger,
        cancelHere: (id, reason) => runs.cancelHere(id, reason),
        ...(options.runJournalStore
          ? {
              journaled: async (id: string) =>
                (await options.runJournalStore!.get(id)) !== undefined,
            }
          : {}),
      })
    : undefined;
  const runs: Runs = new Runs({
    config: current,
    instanceId: () => config.instanceId,
    ...(shared ? { shared } : {}),
    ...(options.runJournalStore ? { journals: options.runJournalStore } : {}),
    logger,
  });
  // The gauges read this runtime at each scrape (a no-op while metrics are off).
  metrics().watch(metricsSources({ registry, approvals, runs, sandbox }));
  const execute = new CodeModeService(deps);
  const codeTools = options.codeToolStore
    ? new CodeTools(options.codeToolStore, current)
    : undefined;
  let stopping: Promise<void> | undefined;
  return {
    config: current,
    registry,
    catalog,
    service,
    execute,
    typecheck,
    ...(codeTools ? { codeTools } : {}),
    ...(activity ? { activity } : {}),
    pins,
    approvals,
    heldRuns,
    inputs,
    runs,
    secretBox,
    ...(oauth ? { oauth } : {}),
    start: async () => {
      // Pins first: the first tool lists are judged against what the store holds.
      await pins.start();
      const journals = options.runJournalStore;
      await approvals.start(
        journals
          ? async (a) => (a.activity_id ? (await journals.get(a.activity_id)) !== undefined : false)
          : undefined,
      );
      if (options.live) registry.start();
      recorder?.start();
      await Promise.all([pool.start(), codeTools?.start()]);
      // Runs an earlier life of this instance (or another instance) left journaled go on here.
      if (options.live) {
        runs.startResuming((record, entries) =>
          resumeRun(
            { runs, service, execute, codeTool: (name) => codeTools?.find(name) },
            record,
            entries,
          ),
        );
      }
    },
    applyConfig: async (next, origin) => {
      if (next.codeExecution.poolSize !== config.codeExecution.poolSize) {
        logger.warn(
          { from: config.codeExecution.poolSize, to: next.codeExecution.poolSize },
          'code_execution_pool_size changes apply after a restart',
        );
      }
      config = next;
      await registry.update(next.servers, origin);
    },
    // Journaled runs still alive past the grace are left to a restart, not ended here.
    drain: (graceMs) => pool.drain(graceMs, () => runs.abandonDurable()),
    stop: () => {
      runs.stop();
      codeTools?.stop();
      pins.stop();
      approvals.stop();
      oauth?.close();
      // The history is flushed last: nothing recorded is lost on a clean stop.
      // The runs' last rows (their ends) are written before the caller closes the store.
      stopping ??= Promise.all([pool.stop(), registry.stop(), typecheck.stop()]).then(() =>
        Promise.all([recorder?.stop(), shared?.stop()]).then(() => undefined),
      );
      return stopping;
    },
  };
}
