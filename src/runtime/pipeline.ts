import { didYouMean, suggestionsField } from "./near-names.js";
import type { CallRelay } from "../adapters/relay.js";
import { signalOf, withCancellation, type Cancel, type Cancellation } from "../cancel.js";
import type { Adapter, CallContext, Logger, ToolDescriptor } from "../adapters/types.js";
import type { Redactor } from "../adapters/shared/redact.js";
import { describeThrown, fromThrown, RuntimeError } from "../errors.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import { UNLOADED_SKILL_HINT, type Skill } from "../plugins/skills.js";
import type { ErrorAnswer, NextStep, OperationResult, SuccessKind } from "./answers.js";
import { confirmedByOf, confirmFlag, gatedAdapter, passGate, strongerConfirmation, type GatePolicy, type GateRequest, type SkillGate } from "./gate.js";
import { cameFromAdapter } from "./passed-through.js";
import { approveCall } from "./approved-call.js";
import { writeReason } from "./write-reason.js";
import { ConfirmInterrupt, type ConfirmPolicy, type ConfirmQuestion, type Confirmer } from "./confirm.js";
import type { JobStore } from "./jobs.js";
import type { CallFacts, CallObserver, OperationTrace, Tracing } from "./observer.js";
import { canonicalJson, type LoopBreaker } from "./loop-breaker.js";
import { refusePlaceholders } from "./placeholders.js";
import { aliasDeclaredByTool, repairArguments, repairRequest, stripToolPrefix, unreadableArgumentsString, type NameField, type Repair, type RepairedRequest } from "./repair.js";
import { truncationNote } from "./truncation-note.js";
import { DeadlineError, isToolErrorResult, shapeResult, toolErrorText, toolReportedError, withDeadline, type DeadlineScope, type Truncation } from "./result.js";
import { startOrDeadline } from "./start-or-deadline.js";
import { saysToolUnknown } from "./unknown-tool-answer.js";
import type { MediaItem } from "./binary-content.js";
import type { Session } from "./session.js";
import { oneLine } from "./one-line.js";
import { closestNames, foldName, namesSame, normalise, unicodeFormNote } from "./similarity.js";
import { isSchemaLike, skillReportedFailure, SkillReportedFailure } from "./skill-answer.js";
import { noteUndeclaredArguments, placeStrayKeys } from "./stray-keys.js";
import { validateArguments } from "./validation.js";
import { takeUnrunPatterns } from "../json-schema.js";
import { quotedPattern } from "../schema-regexp.js";
import { declaredPropertyNames } from "../schema-branches.js";
import type { LoggedSkillRun, WriteLog } from "./write-log.js";
import { cutOffWriteError, refuseAfterAnswer, failedRunError, refuseAfterStop, stoppedRunError, type SentStep } from "./stopped-run.js";
import { isPlainObject } from "../plain-object.js";
import { asPromise } from "../as-promise.js";
import { describeArgumentValue, echoed, echoedMasked, MAX_NAME_CHARS } from "./argument-value.js";
import { boundError } from "./error-bound.js";
import { directionsTo, sameNameIn, type NamedTarget, type SentCall } from "./misdirected.js";
import { confirmOf, toolArgumentsOf } from "./redirect.js";
import { withheldToolError } from "../plugins/tool-filter.js";

/**
 * The one call path. Every way to run a plugin's tool or skill — `_call`, `_run_skill`, the
 * compact `agent_tools_call`/`agent_tools_run_skill`, the text layer's plugin commands and the
 * text modules' in-memory plugins — is `runtime.call`/`runtime.runSkill`, which run these steps
 * in order, each a small function of the run's state:
 *
 *   repair → loop check → resolve (plugin, then tool or skill) → validate → gate → invoke → shape
 *
 * and the answer is made in one place (`frame`) from what they left, or from the one error type.
 * Repair comes first because the repaired request is what the loop breaker compares and what
 * names the target; the loop check sees the outcome of everything after it (`runChecked`), so it
 * sees every failure. A step returns a promise only when it has to wait: on a plain call most
 * of them finish synchronously, and the run pays one async frame instead of one per step.
 */

export type PipelineOperation = "call" | "run_skill";

/** A plugin that can be called: configured and with its adapter built. */
export type ReadyPlugin = LoadedPlugin & { adapter: Adapter };

export interface OperationContext {
  signal?: AbortSignal;
  /**
   * The same cancellation as `signal`, when the caller has it as a Cancel (the facade's fast
   * lane): the pipeline listens to it instead, and `signal` is then a getter that makes the
   * AbortSignal only if something reads it (cancel.ts).
   */
  cancel?: Cancel;
  /** Repairs already made above the runtime (a misnamed facade tool that was mended). */
  repairs?: Repair[];
  /** A larger (or smaller) result cap for this call: the text layer filters results before a model sees them. */
  maxResultChars?: number;
  /**
   * The confirmation policy of this caller's front end, in place of the default `confirmFlag`
   * (see gate.ts: an elicitation policy asks the human instead of refusing).
   */
  confirmation?: GatePolicy;
  /**
   * Asks the user to confirm a write, when the client can show a form (confirm.ts). With the
   * plugin's policy "elicit" the default confirmation policy asks it instead of reading `confirm`.
   */
  confirmer?: Confirmer;
  /** Where the downstream's progress, logs and questions go during the call (adapters/relay.ts). */
  relay?: CallRelay;
  /**
   * The caller's client can show its user a confirmation form (it declared form elicitation and
   * its transport can carry the question): answers then say that writes of plugins with policy
   * "elicit" are confirmed by the user, not by a `confirm: true` the model adds.
   */
  userConfirms?: boolean;
  /**
   * This call carries the user's answer to the front end's own confirmation question (a 2026-07-28
   * retry with the form's answer): it is the user's word, not the model repeating the call, so the
   * loop check lets it through. Its outcome is still recorded: the model's own repeats keep counting.
   */
  userAnswered?: boolean;
  /** The command line's log of the writes it sent (write-log.ts): a write this call sends is entered while it runs. */
  writeLog?: WriteLog;
  /** How a front end shows the next call (facade tool names live there, not here); default: the neutral step. */
  present?: (step: import("./answers.js").NextStep) => unknown;
  /**
   * The caller is a command line in agent_tools_exec: a write is confirmed there with `--confirm`,
   * so answers do not advise a top-level `confirm: true` (confirm.ts confirmWording).
   */
  commandLine?: boolean;
  /**
   * The agent_tools_exec command line that makes a call (the facade's typed tools): a result cut
   * at this caller's cap says it, as the way to the whole result (truncation-note.ts).
   */
  execLine?: (step: import("./answers.js").NextStep) => Promise<string>;
}

export interface PipelineDeps {
  /** The plugin a request names (a prefix, or an in-memory plugin object); throws UNKNOWN_PLUGIN / NOT_CONFIGURED / FORBIDDEN. */
  resolvePlugin(target: string | LoadedPlugin, repairs: Repair[], session: Session): ReadyPlugin;
  /** The plugin's background jobs for this session (or its identity). */
  jobsOf(session: Session, prefix: string): JobStore;
  /** Told of every operation once it has an outcome (metrics, audit). */
  observers: readonly CallObserver[];
  /** Traces of calls and their steps (OpenTelemetry when configured); absent: no step is wrapped. */
  tracing?: Tracing | undefined;
  toolsOf(plugin: LoadedPlugin): Promise<ToolDescriptor[]>;
  /** The plugin's tools when `toolsOf` would have them at once (in memory), without a promise; undefined: ask `toolsOf`. */
  knownTools?(plugin: LoadedPlugin): ToolDescriptor[] | undefined;
  /**
   * The tools and skills of other plugins the session may use that `name` names (case and
   * separators aside), waiting a little for catalogs not listed yet: for an answer
   * that leads a call sent to the wrong plugin to the right one (misdirected.ts).
   */
  elsewhere?(session: Session, name: string, except: string): Promise<NamedTarget[]>;
  /**
   * A call that names no plugin (compact mode's `plugin` left out): the plugin and tool or skill
   * its name reads as (`tasks_list_tasks`, `tasks.list_tasks`), when that is one plugin the
   * session may use and the rest of the name is one of its tools (or skills); else the places a
   * tool or skill of that name is, and the plugins the session may use. The failure path only.
   */
  pluginOfName?(session: Session, name: string, kind: NamedTarget["kind"]): Promise<{ plugin: string; name: string } | { targets: NamedTarget[]; plugins: string[] }>;
  /**
   * List the plugin's tools again now (the call waits; bounded by the listing deadline): a call
   * named a tool that a stored catalog lacks, or the downstream said a listed tool is unknown.
   */
  relistTools?(plugin: LoadedPlugin): Promise<ToolDescriptor[]>;
  /** Whether the plugin's list in memory came from the persistent store and no listing in this process has confirmed it. */
  listedFromStore?(plugin: LoadedPlugin): boolean;
  /** The tools of the plugin's server that its config entry keeps out (includeTools/excludeTools): a call to one is refused as such. */
  withheldTools?(plugin: LoadedPlugin): readonly string[];
  /** How many times the catalog of the plugin a call names has changed (catalog.ts `version`), for the loop breaker. */
  catalogVersion?(target: string | LoadedPlugin): number;
  /** Names the search index finds for `name` in the plugin, for "did you mean". */
  similarTools(plugin: LoadedPlugin, name: string): string[];
  isReadOnly(plugin: LoadedPlugin, tool: ToolDescriptor): boolean;
  /**
   * Access policies (who may do this: an identity's plugins and write right): run as soon as the
   * target is known, before validation, so a caller learns nothing about a call it may not make.
   * They run again for every step a skill takes.
   */
  accessPolicies: readonly GatePolicy[];
  /** A plugin's confirm policy: "elicit" (ask the user when the client can) or "flag". */
  confirmPolicyOf(prefix: string): ConfirmPolicy;
  loop: LoopBreaker;
  timeoutMs: number;
  maxResultChars: number;
  log: Logger;
  /**
   * The fleet's one redactor (redaction.ts): every result (in the shape step) and every error
   * payload (in `frame`) leaves through it.
   */
  redact: (value: unknown) => unknown;
  /**
   * The redactor behind `redact`. A plugin's tool call tells its adapter (`CallContext.resultRedactor`):
   * an adapter with the same redactor leaves the masking of the result to the shape step, so it
   * is done once. Skills are not told: what a skill's own adapter calls return, it sees masked.
   */
  redactor?: Redactor;
  /** Told when a plugin's tool answered a call (its status becomes "ready"). */
  onAnswered?: (prefix: string) => void;
}

interface CallState {
  readonly session: Session;
  readonly operation: PipelineOperation;
  readonly target: string | LoadedPlugin;
  readonly raw: unknown;
  readonly ctx: OperationContext;
  readonly repairs: Repair[];
  /** What the call learns on its way (whether it changes data), for observers. */
  readonly facts: CallFacts;
  request?: RepairedRequest;
  plugin?: ReadyPlugin;
  tool?: ToolDescriptor;
  /** Whether the resolved tool can change data (not known read-only); decided once, read by both gates. */
  writes?: boolean;
  skill?: Skill;
  args?: Record<string, unknown>;
  misplacedConfirm?: string;
  /** Whether the run is confirmed (top-level confirm, or a skill's own confirm argument). */
  confirmed?: boolean;
  /** Gate refusals inside a skill: a skill that catches one and answers normally still fails. */
  refusals?: RuntimeError[];
  /** Skill steps naming a tool the plugin does not have (warnings when the skill catches them and answers). */
  brokenSteps?: RuntimeError[];
  /** Questions for the user raised inside a skill (the facade asks and the call comes again). */
  interrupts?: ConfirmInterrupt[];
  /** A skill run's deadline, once it runs: its gate refuses every step after it aborted. */
  deadline?: DeadlineScope;
  /** A skill run's context (the one its `run` is handed), once it runs: the steps it sends without one get it (step-context.ts). */
  runContext?: CallContext;
  /** The skill run has settled (answered, failed or stopped): its gate refuses every later step. */
  runOver?: boolean;
  /** The gate's decisions still pending for the run's steps (SkillRun.deciding). */
  deciding?: Set<Promise<void>>;
  /** The steps a skill run sent on to its plugin (for the deadline's answer: which may have taken effect). */
  sent?: SentStep[];
  /** The skill run in the command line's write log, when a line runs it (entered at its first step that changes data). */
  loggedRun?: LoggedSkillRun;
  /** The adapter the invoke step uses: a skill's is gated. */
  adapter?: Adapter;
  /** A skill's gate (the one its adapter goes through), for calls it approves up front (approved-call.ts). */
  skillGate?: SkillGate;
  /** This run's trace, when tracing is on. */
  trace?: OperationTrace | undefined;
  output?: unknown;
  result?: unknown;
  truncated?: Truncation;
  /** The plugin's tools were listed again for this call (once at most: a stale stored catalog, or a downstream that said "unknown tool"). */
  relisted?: boolean;
  /** The result's images and audio, passed to the client beside the answer (binary-content.ts). */
  media?: readonly MediaItem[];
  /** What the answer says of its result besides it (an adapter's CallContext.warn). */
  warnings?: string[];
  /** Set by the loop check once it passed: the run's outcome is then recorded (runChecked). */
  loop?: { key: string | undefined; keyOf: () => string };
}

/** One step of a run: reads and fills the state, throws to end the run, returns a promise only when it waits. */
type Step = (state: CallState) => void | Promise<void>;

/** Arguments longer than this (as JSON) are left out of a cut result's exec line: the note would outgrow its use. */
const EXEC_LINE_ARGUMENT_CHARS = 300;

/** Run steps in order, waiting only on a step that returned a promise (callbacks: no async frame kept per run). */
export function sequence<S>(steps: ReadonlyArray<(state: S) => void | Promise<void>>): (state: S) => Promise<void> {
  const from = (state: S, first: number): Promise<void> | undefined => {
    for (let i = first; i < steps.length; i++) {
      const waiting = (steps[i] as (state: S) => void | Promise<void>)(state);
      if (waiting) return waiting.then(() => from(state, i + 1));
    }
    return undefined;
  };
  const start = (state: S): Promise<void> => from(state, 0) ?? Promise.resolve();
  return (state) => asPromise(start, state);
}

/** A step inside the run's trace: its span covers the step's work, until it returns or throws, so the steps show side by side. */
function traced<S extends { trace?: OperationTrace | undefined }>(name: string, step: (state: S) => void | Promise<void>): (state: S) => void | Promise<void> {
  return (state) => {
    if (!state.trace) return step(state);
    const finish = state.trace.step(name);
    let waiting: void | Promise<void>;
    try {
      waiting = step(state);
    } catch (error) {
      finish(fromThrown(error).code);
      throw error;
    }
    if (!waiting) {
      finish();
      return;
    }
    return waiting.then(
      () => finish(),
      (error: unknown) => {
        finish(fromThrown(error).code);
        throw error;
      },
    );
  };
}

/**
 * Run a tool call, entered in the command line's write log while it runs when it changes data:
 * a line stopped meanwhile names it (text-layer.ts), since the change may still be made.
 */
function loggedWrite<T>(state: { writes?: boolean; ctx: OperationContext }, tool: string, stop: Cancellation, call: () => Promise<T>): Promise<T> {
  const log = state.writes === true ? state.ctx.writeLog : undefined;
  if (!log) return call();
  const answered = log.start(tool);
  try {
    // Ended by the stop (the line's deadline or cancel, or the call's own): the backend did not answer.
    return call().finally(() => answered(stop.aborted));
  } catch (error) {
    answered();
    throw error;
  }
}

/**
 * A gate request with the caller's cancellation as policies know it, an AbortSignal as `signal`;
 * for a Cancel it is made only when a policy reads it (withCancellation), so a gate that never
 * looks costs no AbortSignal.
 */
function withCallerSignal<T extends object>(request: T, ctx: OperationContext): T & { signal?: AbortSignal } {
  const source = ctx.cancel ?? ctx.signal;
  return source ? withCancellation(request, source) : request;
}

function refuseLongName(sent: string, prefix: string, kind: "tool" | "skill", details: () => Record<string, unknown> = () => ({})): void {
  if (sent.length <= MAX_NAME_CHARS) return;
  throw new RuntimeError(kind === "tool" ? "UNKNOWN_TOOL" : "UNKNOWN_SKILL", `plugin '${prefix}' has no ${kind} '${echoed(sent)}' (a name of ${sent.length} characters; ${kind} names are short identifiers)`, {
    [kind === "tool" ? "toolName" : "skill"]: echoed(sent),
    length: sent.length,
    ...details(),
  });
}

/**
 * The caller's call as a redirect keeps it (redirect.ts, the helpers routing.ts uses for a wrong
 * facade name): its arguments (the `arguments` object, else the top-level keys nothing read, as a
 * flattened call sends them) and the top-level `confirm` it sent (`true`, or a value that is not
 * honoured, which the call made then names as not honoured).
 */
function sentCallOf(request: RepairedRequest): SentCall {
  const args = isPlainObject(request.arguments) && Object.keys(request.arguments).length ? { arguments: request.arguments } : {};
  const confirm = request.confirmSent ?? (request.confirm ? true : undefined);
  return { arguments: toolArgumentsOf({ ...request.stray, ...args }), ...confirmOf({ confirm }), ...(typeof request.name === "string" ? { name: request.name } : {}) };
}

function prefixOf(target: string | LoadedPlugin): string {
  return typeof target === "string" ? target : target.manifest.prefix;
}

const nameFieldOf = (operation: PipelineOperation): NameField => (operation === "call" ? "toolName" : "skill");

/**
 * Whether a skill may read `confirm` from its own arguments (original-runtime skills check
 * `args.confirm` themselves, and their 0.2.7 meta often says nothing of it: no `args`, or a
 * sentence about the other arguments): any skill without a schema, or whose schema declares it.
 * Only a schema says for sure which arguments a skill reads, so only a schema can rule it out.
 */
function skillOwnsConfirm(skill: Skill): boolean {
  const args = skill.meta.args;
  if (isSchemaLike(args)) return declaredPropertyNames(args, args)?.includes("confirm") === true;
  return true;
}

/** `{"id": …}`: the target's parameters (its required ones, else the first declared) as the shape `arguments` takes; `{}` when it lists none. */
function exampleArguments(state: { tool?: ToolDescriptor; skill?: Skill }): string {
  const schema = state.tool ? state.tool.inputSchema : state.skill?.meta.args;
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return "{}";
  const required = Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === "string") : [];
  const names = (required.length ? required : Object.keys(schema.properties)).slice(0, 3);
  return names.length ? `{${names.map((n) => `${JSON.stringify(n)}: …`).join(", ")}}` : "{}";
}

function describeKind(value: unknown): string {
  return Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
}

/**
 * The frame every operation shares (call, skill, discover, search, describe): the work's value
 * or its error as a typed answer, the repairs said once, the observers and the trace told the
 * outcome. Errors become answers here and nowhere else.
 */
export interface FrameMeta {
  operation: string;
  /** The plugin the operation is counted under (traces, observers, metrics): "*" for a search over every plugin. */
  plugin: string;
  /**
   * What an error answer's `plugin` field says, when not `plugin`: a search counted under "*"
   * answers with the name the caller sent (null: none was sent, so the answer names no plugin;
   * "*" is no name the caller could use).
   */
  answerPlugin?: string | null;
  target?: string | undefined;
  repairs: Repair[];
  log: Logger;
  observers?: readonly CallObserver[];
  facts?: CallFacts;
  /** The arguments as sent, for observers (they redact them). */
  arguments?: unknown;
  /** The fleet's redactor: an error payload leaves through it (it may quote a secret the backend echoed). */
  redact?: (value: unknown) => unknown;
  /** The operation's trace (tracing on), ended here with the outcome. */
  trace?: OperationTrace | undefined;
  /** A result's images and audio, read once the work succeeded: they go on the outcome, beside its payload. */
  media?: readonly MediaItem[] | undefined;
}

export function frame<K extends SuccessKind>(
  session: Session,
  meta: FrameMeta,
  kind: K,
  work: () => Promise<Extract<OperationResult, { kind: K }>["payload"]>,
): Promise<OperationResult> {
  const started = Date.now();
  // Callbacks rather than an async function: nothing of this frame waits on the work (allocation per call).
  return asPromise(work).then(
    (payload) => {
      if (meta.repairs.length) (payload as { repairs?: string[] }).repairs = meta.repairs.map((r) => r.message);
      const media = meta.media;
      return outcomeTold(session, meta, started, (media ? { kind, isError: false, payload, media } : { kind, isError: false, payload }) as OperationResult);
    },
    (thrown: unknown) => {
      // A question for the user is not a failure: it goes back to the facade, which asks and calls again.
      if (thrown instanceof ConfirmInterrupt) throw thrown;
      const error = fromThrown(thrown);
      // Masked, then bounded: a downstream's error text (and what it quotes of the call) can be megabytes.
      const masked = (meta.redact ? meta.redact(error.toPayload()) : error.toPayload()) as ErrorAnswer["error"];
      // The plugin as the call named it: a name that is no plugin's can be any length (prefixes have
      // at most 32 characters), and may hold a credential: masked before it is cut, as the target is.
      const mask = meta.redact && ((text: string) => String(meta.redact?.(text)));
      const named = meta.answerPlugin === undefined ? meta.plugin : meta.answerPlugin;
      const payload: ErrorAnswer = { ok: false, ...(named ? { plugin: echoedMasked(named, mask) } : {}), ...(meta.target ? { target: mask ? mask(meta.target) : meta.target } : {}), error: boundError(masked) };
      if (meta.repairs.length) payload.repairs = meta.repairs.map((r) => r.message);
      meta.log.debug(`${meta.operation} ${meta.plugin}${meta.target ? `/${meta.target}` : ""} failed`, { code: error.code });
      return outcomeTold(session, meta, started, { kind: "error", isError: true, payload });
    },
  );
}

/** The trace and the observers told the outcome (frame); then the outcome. */
function outcomeTold(session: Session, meta: FrameMeta, started: number, outcome: OperationResult): OperationResult | Promise<OperationResult> {
  meta.trace?.end({ plugin: meta.plugin, ...(meta.target ? { target: meta.target } : {}), outcome: outcome.isError ? outcome.payload.error.code : "ok", mutating: meta.facts?.mutating ?? false });
  const observers = meta.observers;
  if (!observers?.length || !anyTold(observers, meta.facts?.mutating ?? false)) return outcome;
  return tellObservers(session, meta, started, outcome, observers).then(() => outcome);
}

/** Whether an observer is to be told of this operation (most calls change nothing, and the audit log hears only of those that do). */
function anyTold(observers: readonly CallObserver[], mutating: boolean): boolean {
  for (const observe of observers) if (mutating || !observe.mutatingOnly) return true;
  return false;
}

async function tellObservers(session: Session, meta: FrameMeta, started: number, outcome: OperationResult, observers: readonly CallObserver[]): Promise<void> {
  const event = {
    session,
    operation: meta.operation,
    plugin: meta.plugin,
    ...(meta.target ? { target: meta.target } : {}),
    outcome: outcome.isError ? outcome.payload.error.code : "ok",
    startedAt: started,
    durationMs: Date.now() - started,
    mutating: meta.facts?.mutating ?? false,
    arguments: meta.arguments,
    ...(meta.facts?.confirmedBy ? { confirmedBy: meta.facts.confirmedBy } : {}),
  };
  // Awaited before the answer goes out, so an acknowledged write is in the audit log.
  for (const observe of observers) {
    if (observe.mutatingOnly && !event.mutating) continue;
    try {
      const note = await observe(event);
      if (note) markUnaudited(outcome, note.unaudited);
    } catch (error) {
      meta.log.error(`call observer failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The answer says its write is not in the audit log: `audited: false` beside `ok`, and why among its warnings. */
function markUnaudited(outcome: OperationResult, why: string): void {
  const payload = outcome.payload as { audited?: boolean; warnings?: string[] };
  payload.audited = false;
  (payload.warnings ??= []).push(why);
}

/** What frame reads of a run: what it has resolved so far, read when the outcome is told (a class: no accessors defined per call). */
class RunMeta implements FrameMeta {
  readonly operation: string;
  readonly trace: OperationTrace | undefined;
  readonly repairs: Repair[];
  readonly log: Logger;
  readonly observers: readonly CallObserver[];
  readonly facts: CallFacts;
  readonly redact: (value: unknown) => unknown;
  readonly #state: CallState;

  constructor(state: CallState, deps: PipelineDeps) {
    this.#state = state;
    this.operation = state.operation;
    this.trace = state.trace;
    this.repairs = state.repairs;
    this.log = deps.log;
    this.observers = deps.observers;
    this.facts = state.facts;
    this.redact = deps.redact;
  }

  get plugin(): string {
    return this.#state.plugin?.manifest.prefix ?? prefixOf(this.#state.target);
  }

  get target(): string | undefined {
    const sent = this.#state.request?.name;
    // A name the caller sent is masked before it is cut (echoedMasked): it may hold a credential.
    return this.#state.tool?.name ?? this.#state.skill?.name ?? (sent === undefined ? undefined : echoedMasked(sent, (text) => String(this.redact(text))));
  }

  get arguments(): unknown {
    return this.#state.request?.arguments;
  }

  get media(): readonly MediaItem[] | undefined {
    return this.#state.media;
  }
}

export interface Pipeline {
  call(session: Session, target: string | LoadedPlugin, raw: unknown, ctx?: OperationContext): Promise<OperationResult>;
  runSkill(session: Session, target: string | LoadedPlugin, raw: unknown, ctx?: OperationContext): Promise<OperationResult>;
  /** The gate's policy chain for a caller (the access policies, then the caller's confirmation policy). */
  policies(ctx: OperationContext): readonly GatePolicy[];
  /**
   * A skill's view of a plugin's adapter, every method gated (also used for discover-context
   * skills). `run.over`: the run has answered (the gate closes); `run.context`: the context its
   * `run` is handed, which its steps are sent with (gatedAdapter).
   */
  adapterForSkill(session: Session, plugin: ReadyPlugin, skill: string, confirmed: boolean, ctx: OperationContext, run?: { over?: () => boolean; context?: () => CallContext | undefined }): Adapter;
}

export function createPipeline(deps: PipelineDeps): Pipeline {
  /**
   * The default confirmation policy of a caller: with a confirmer (the client can ask its user)
   * and the plugin's policy "elicit", the user decides (the model's `confirm` is not looked at);
   * otherwise the model's top-level `confirm: true` lets a write through. A decline runs nothing.
   */
  const confirmationOf = (ctx: OperationContext): GatePolicy =>
    ctx.confirmation ??
    // A call that changes nothing passes at once, without a promise.
    ((request) => (request.mutating ? confirmWrite(ctx, request) : undefined));
  /** The default confirmation of a write: the user when the client can ask and the plugin says "elicit", else the model's `confirm`. */
  const confirmWrite = async (ctx: OperationContext, request: GateRequest): Promise<void> => {
    if (ctx.confirmer && deps.confirmPolicyOf(request.plugin) === "elicit") {
      const question: ConfirmQuestion =
        request.via === "skill"
          ? { plugin: request.plugin, tool: request.target, arguments: request.arguments, skill: request.skill ?? "", skillArguments: request.skillArguments ?? {}, redact: deps.redact }
          : { plugin: request.plugin, tool: request.target, arguments: request.arguments, redact: deps.redact };
      const decision = await ctx.confirmer(question);
      if (decision === "accept") {
        request.confirmedBy = "user";
        return;
      }
      const what = `${request.via === "skill" ? `skill '${request.skill ?? ""}'` : `'${request.target}'`} of plugin '${request.plugin}'`;
      const said =
        decision === "unconfirmed"
          ? `the user's answer when asked to confirm ${what} was not a yes (the form came back accepted without 'confirm' ticked); nothing was changed`
          : // The client answered, not necessarily a person: headless clients (claude -p, codex exec)
            // answer every question with cancel/decline, so the message must not claim a user was asked.
            `the agent's client ${decision === "decline" ? "declined" : "cancelled"} ${what} when asked to confirm it; nothing was changed. ` +
            "A client running without a person (claude -p, codex exec) declines every question: the person running it can set AGENT_TOOLS_CONFIRM=flag for this server, so that the model's confirm: true approves a write";
      throw new RuntimeError("CONFIRM_DECLINED", said, {
        tool: request.target,
        decision,
        ...(request.skill ? { skill: request.skill } : {}),
      });
    }
    await confirmFlag(request);
  };
  const policies = (ctx: OperationContext): readonly GatePolicy[] => [...deps.accessPolicies, confirmationOf(ctx)];

  // ── repair: the request's shape, before anything reads it ────────────────────────────────
  const repair: Step = (state) => {
    state.request = repairRequest(state.raw, nameFieldOf(state.operation), state.repairs);
  };

  // ── loop check: identical failures a retry cannot fix, within a window ──────────────────
  const loopCheck: Step = (state) => {
    const request = state.request as RepairedRequest;
    // Stray keys count: a flattened call's arguments are among them until the schema places them.
    const keyOf = () =>
      `${state.operation}:${prefixOf(state.target)}|${canonicalJson({ name: request.name ?? request.nameSent, arguments: request.arguments, confirm: request.confirmSent ?? request.confirm, ...(request.stray ? { stray: request.stray } : {}) })}`;
    state.loop = { key: state.ctx.userAnswered ? keyOf() : deps.loop.check(state.session, keyOf, catalogVersionOf(state)), keyOf };
  };

  /** The called plugin's catalog version, read when the loop breaker needs it; undefined without the dependency. */
  const catalogVersionOf = (state: CallState): (() => number) | undefined => (deps.catalogVersion ? () => deps.catalogVersion!(state.plugin ?? state.target) : undefined);

  /** Run a chain, then `done` (the answer's payload); once the loop check has passed, the outcome of everything after it is recorded. */
  const runChecked = <T>(chain: (state: CallState) => Promise<void>, state: CallState, done: (state: CallState) => T): Promise<T> =>
    chain(state).then(
      () => {
        if (state.loop) {
          deps.loop.record(state.session, state.loop.key, state.loop.keyOf, undefined);
          // A write that succeeded may have made a refused read valid (the item it added is there now).
          if (state.facts.mutating && state.plugin) deps.loop.dataChanged(state.session, state.plugin.manifest.prefix);
        }
        return done(state);
      },
      (error: unknown) => {
        // A question for the user is not a failure.
        if (state.loop && !(error instanceof ConfirmInterrupt)) deps.loop.record(state.session, state.loop.key, state.loop.keyOf, fromThrown(error), catalogVersionOf(state), state.plugin?.manifest.prefix);
        throw error;
      },
    );

  // ── resolve: the plugin, then the tool or skill ─────────────────────────────────────────
  const resolvePlugin: Step = (state) => {
    // No plugin named (only a failed call gets here): its name may say it (`tasks_list_tasks`).
    const name = state.target === "" ? state.request?.name : undefined;
    if (name && deps.pluginOfName) return pluginFromName(state, name);
    try {
      state.plugin = deps.resolvePlugin(state.target, state.repairs, state.session);
    } catch (error) {
      const sent = typeof state.target === "string" ? state.request?.name : undefined;
      if (!sent || !deps.pluginOfName || !(error instanceof RuntimeError) || error.code !== "UNKNOWN_PLUGIN" || error.details?.configChanged !== undefined) throw error;
      return wrongPluginRedirect(state, sent, error);
    }
  };

  /**
   * A `plugin` that names no plugin (the compact tools' `{"plugin": "stock", "toolName":
   * "get_item"}`), for a tool or skill name found in exactly one plugin: the missing-plugin
   * answer's direction to it (`details.next`, the call sent with its plugin put right). Nothing is
   * run: the call named another plugin. Otherwise the unknown-plugin error as it was.
   */
  const wrongPluginRedirect = (state: CallState, name: string, unknown: RuntimeError): Promise<void> => {
    const kind: NamedTarget["kind"] = state.operation === "call" ? "tool" : "skill";
    return (deps.pluginOfName as NonNullable<PipelineDeps["pluginOfName"]>)(state.session, name, kind).then((found) => {
      const targets = "plugin" in found ? [{ plugin: found.plugin, kind, name: found.name }] : found.targets;
      const [only] = targets;
      if (targets.length !== 1 || only === undefined) throw unknown;
      const { where, next } = directionsTo([only], "", state.ctx.present, sentCallOf(state.request as RepairedRequest));
      const said = unknown.message.replace(/; did you mean [^?]*\?$/, "");
      throw new RuntimeError("UNKNOWN_PLUGIN", `${said}. ${where}`, { ...unknown.details, next: next[0] }, "Make the call in `details.next`: yours with `plugin` put right.");
    });
  };

  /**
   * A call without `plugin` whose name reads as one plugin's tool or skill runs it, said in
   * `repairs` (the same call the model meant: a write still needs its confirm, the gate comes
   * later). Otherwise UNKNOWN_PLUGIN names the plugins the caller may use and, when a tool or
   * skill of that name is somewhere, the call that reaches it (`details.next`, its arguments as sent).
   */
  const pluginFromName = (state: CallState, name: string): Promise<void> => {
    const kind = state.operation === "call" ? "tool" : "skill";
    const field = nameFieldOf(state.operation);
    const request = state.request as RepairedRequest;
    return (deps.pluginOfName as NonNullable<PipelineDeps["pluginOfName"]>)(state.session, name, kind).then((found) => {
      if ("plugin" in found) {
        state.repairs.push({ kind: "plugin-from-name", message: `'plugin' was missing: ${field} '${name}' was read as ${kind} '${found.name}' of plugin '${found.plugin}'` });
        request.name = found.name;
        state.plugin = deps.resolvePlugin(found.plugin, state.repairs, state.session);
        return;
      }
      const plugins = found.plugins.length > 20 ? [...found.plugins.slice(0, 5), `… ${found.plugins.length} plugins in all`] : found.plugins;
      if (!found.targets.length) throw new RuntimeError("UNKNOWN_PLUGIN", "'plugin' is missing: name the plugin's prefix (search hits and help show it)", { plugins });
      // Each fact once: the message says where the name is, `details.next` the call (plugin, name
      // and the arguments sent), the hint only points there. The call used to be said in the
      // message, again in the hint, and the places a fourth time in `details.elsewhere`.
      const { where, next } = directionsTo(found.targets, "", state.ctx.present, sentCallOf(request));
      const calls = next.length === 1 ? "the call in `details.next`" : "one of the calls in `details.next`";
      throw new RuntimeError("UNKNOWN_PLUGIN", `'plugin' is missing; nothing was run. ${where}`, { plugins, next: next.length === 1 ? next[0] : next }, `Make ${calls}: yours with \`plugin\` added.`);
    });
  };

  // Not an async function: the part after the catalog answered runs in a callback of its own, so
  // the wait keeps no frame of this step's locals alive (docs/performance-log.md "Session 5: the hot
  // path's allocation").
  const resolveTool: Step = (state) => {
    const plugin = state.plugin as ReadyPlugin;
    const request = state.request as RepairedRequest;
    if (!request.name) {
      const missing = `'toolName' is ${request.nameSent === undefined ? "missing" : "not a non-empty string"}: name the tool of plugin '${plugin.manifest.prefix}' to call`;
      // The hint's example is one of this plugin's own tools (a read-only one first), not a name it may not have.
      return toolsForAnswer(plugin).then((tools) => {
        const example = (tools.find((t) => deps.isReadOnly(plugin, t)) ?? tools[0])?.name;
        const hint = example ? `Pass the tool to run in \`toolName\`, e.g. {"toolName":${JSON.stringify(example)},"arguments":{}}. The plugin's _discover tool (or agent_tools_search) finds the others.` : undefined;
        throw new RuntimeError("MISSING_TOOL_NAME", missing, { received: request.keys }, hint);
      });
    }
    // The usual call: the catalog is in memory, and the step does not wait a turn for it.
    const known = deps.knownTools?.(plugin);
    if (known) return pickTool(state, known);
    return deps.toolsOf(plugin).then((tools) => pickTool(state, tools));
  };

  /** The tool a call names among the plugin's `tools` (repairs, then "did you mean"), into the state. */
  const pickTool = (state: CallState, tools: ToolDescriptor[]): void | Promise<void> => {
    const plugin = state.plugin as ReadyPlugin;
    const prefix = plugin.manifest.prefix;
    const sent = (state.request as RepairedRequest).name as string;
    // Every catalog holds one tool per name (catalog.ts keeps the first a server lists). The set of
    // names is made only for a call that names no tool exactly (the repairs and the suggestions
    // need it), never on the way to a success.
    const named = (name: string) => tools.find((t) => t.name === name);
    let names: Set<string> | undefined;
    const allNames = () => (names ??= new Set(tools.map((t) => t.name)));
    let tool = named(sent);
    if (!tool) {
      // Before any repair or similarity search, which a huge name would make slow.
      refuseLongName(sent, prefix, "tool");
      const stripped = stripToolPrefix(sent, prefix, (n) => allNames().has(n), state.repairs);
      if (stripped) tool = named(stripped);
    }
    if (!tool) {
      // Case and separators only ("listNotes" for "list_notes"), and only when exactly one tool fits.
      const folded = foldName(sent).replace(/([a-z0-9])(?=[A-Z])/g, "$1_");
      const alike = tools.filter((t) => normalise(t.name) === normalise(sent) || foldName(t.name) === folded);
      if (alike.length === 1 && alike[0]) {
        tool = alike[0];
        state.repairs.push({ kind: "matched-tool-case", message: `tool name '${sent}' was matched to '${tool.name}'${unicodeFormNote(sent, tool.name)}` });
      }
    }
    if (!tool) {
      // A tool the user's config keeps out is refused as such, not as unknown: a near name or a
      // relisting would not help, and "did you mean" must not lead to it.
      const withheld = deps.withheldTools?.(plugin) ?? [];
      if (withheld.length) {
        const out = withheld.includes(sent) ? sent : (stripToolPrefix(sent, prefix, (n) => withheld.includes(n), []) ?? sameNameIn(sent, withheld));
        if (out) throw withheldToolError(plugin.manifest, out);
      }
      // A stored catalog may predate a tool the server has added: the server is asked before the
      // name is refused (a call to it would have started the server anyway).
      if (!state.relisted && deps.relistTools && deps.listedFromStore?.(plugin)) {
        state.relisted = true;
        return deps.relistTools(plugin).then((fresh) => pickTool(state, fresh));
      }
      return unknownTool(state, sent, allNames(), `plugin '${prefix}' has no tool '${sent}'`);
    }
    state.tool = tool;
    state.writes = !deps.isReadOnly(plugin, tool);
    // For the audit: the call reached (or is refused before) a tool that changes data.
    state.facts.mutating = state.writes;
  };

  /** UNKNOWN_TOOL for `sent` among `names` (what: the sentence that says so), with near names, or leading to where the name is. */
  const unknownTool = (state: CallState, sent: string, names: Iterable<string>, what: string): Promise<never> => {
    const plugin = state.plugin as ReadyPlugin;
    const prefix = plugin.manifest.prefix;
    // A skill of this plugin, or another plugin's tool or skill, by that name: the answer leads there.
    const skill = sameNameIn(sent, plugin.skills.map((s) => s.name));
    if (skill) throw misdirected("UNKNOWN_TOOL", what, {}, [{ plugin: prefix, kind: "skill", name: skill }], prefix, state);
    const suggestions = closestNames(sent, names);
    for (const name of deps.similarTools(plugin, sent)) if (!suggestions.includes(name) && suggestions.length < 5) suggestions.push(name);
    // The name sent is the answer's `target`: details do not repeat it.
    const unknown = new RuntimeError("UNKNOWN_TOOL", `${what}${didYouMean(suggestions)}`, suggestionsField(suggestions));
    if (!deps.elsewhere) throw unknown;
    return deps.elsewhere(state.session, sent, prefix).then((targets) => {
      throw targets.length ? misdirected("UNKNOWN_TOOL", what, {}, targets, prefix, state) : unknown;
    });
  };

  /**
   * The downstream answered that the tool it was sent is unknown (renamed or removed since the
   * catalog was listed): the tools are listed again and, when the fresh list lacks it too, the
   * call is answered UNKNOWN_TOOL with the near names of that list. Otherwise, or when the
   * listing fails, the downstream's own error stands.
   */
  const afterUnknownToDownstream = (state: CallState, error: unknown): Promise<never> => {
    const plugin = state.plugin as ReadyPlugin;
    const name = (state.tool as ToolDescriptor).name;
    if (state.relisted || !deps.relistTools) throw error;
    state.relisted = true;
    return deps.relistTools(plugin).then(
      (fresh) => {
        if (fresh.some((t) => t.name === name)) throw error;
        return unknownTool(state, name, fresh.map((t) => t.name), `plugin '${plugin.manifest.prefix}' has no tool '${name}' any more (its server said so, and its tools were listed again)`);
      },
      () => {
        throw error;
      },
    );
  };

  const resolveSkill: Step = (state) => {
    const plugin = state.plugin as ReadyPlugin;
    const prefix = plugin.manifest.prefix;
    const sent = (state.request as RepairedRequest).name ?? "";
    const skillList = () => plugin.skills.map((s) => ({ name: s.name, description: oneLine(s.meta.description) }));
    let skill = plugin.skills.find((s) => s.name === sent);
    if (!skill) refuseLongName(sent, prefix, "skill", () => ({ skills: skillList() }));
    const names = plugin.skills.map((s) => s.name);
    if (!skill && sent) {
      const stripped = stripToolPrefix(sent, prefix, (n) => names.includes(n), state.repairs, "skill");
      skill = plugin.skills.find((s) => s.name === stripped);
      if (!skill) {
        // Case and separators only ("Count", "insertAndVerifyTask"), and only when exactly one skill fits: said, as for tools.
        const alike = plugin.skills.filter((s) => normalise(s.name) === normalise(sent));
        skill = alike.length === 1 ? alike[0] : undefined;
        if (skill) state.repairs.push({ kind: "matched-skill-case", message: `skill name '${sent}' was matched to '${skill.name}'${unicodeFormNote(sent, skill.name)}` });
      }
    }
    if (!skill && sent) refuseUnloadedSkill(plugin, sent);
    if (!skill) {
      const suggestions = sent ? closestNames(sent, names) : [];
      const nameSent = (state.request as RepairedRequest).nameSent;
      const what = sent
        ? `plugin '${prefix}' has no skill '${sent}'`
        : nameSent === undefined
          ? "'skill' is missing"
          : `'skill' must be the skill's name as a non-empty string, not ${describeArgumentValue(nameSent)}`;
      const unknown = new RuntimeError("UNKNOWN_SKILL", `${what}${didYouMean(suggestions)}`, {
        skills: skillList(),
        ...suggestionsField(suggestions),
      });
      if (!sent) throw unknown;
      // A tool of this plugin, or another plugin's tool or skill, by that name: the answer leads there.
      return toolsForAnswer(plugin).then(async (tools) => {
        const tool = sameNameIn(sent, tools.map((t) => t.name));
        const targets: NamedTarget[] = tool ? [{ plugin: prefix, kind: "tool", name: tool }] : ((await deps.elsewhere?.(state.session, sent, prefix)) ?? []);
        if (!targets.length) throw unknown;
        throw misdirected("UNKNOWN_SKILL", what, { skill: sent, skills: skillList() }, targets, prefix, state);
      });
    }
    state.skill = skill;
  };

  /**
   * A skill of the plugin whose file did not load (loader.ts) is said as that — why, and which
   * file — not as a name the plugin lacks with other skills to pick, as if it were a typo. Named
   * as a skill is: case, separators and the plugin's prefix aside.
   */
  const refuseUnloadedSkill = (plugin: ReadyPlugin, sent: string): void => {
    const prefix = plugin.manifest.prefix;
    const failures = plugin.failedSkills ?? [];
    const named = (name: string) => failures.find((failure) => namesSame(name, failure.name));
    const failed = named(sent) ?? named(stripToolPrefix(sent, prefix, (bare) => named(bare) !== undefined, []) ?? "");
    if (!failed) return;
    throw new RuntimeError(
      "UPSTREAM_ERROR",
      `skill '${failed.name}' of plugin '${prefix}' exists but failed to load when the server started (${failed.file}): ${failed.error}`,
      { skill: failed.name, file: failed.file },
      UNLOADED_SKILL_HINT,
    );
  };

  /** The plugin's tools for an error's words: none when they cannot be listed (the error at hand is what the answer is about). */
  const toolsForAnswer = (plugin: ReadyPlugin): Promise<ToolDescriptor[]> => {
    const known = deps.knownTools?.(plugin);
    return known ? Promise.resolve(known) : deps.toolsOf(plugin).catch(() => []);
  };

  /**
   * UNKNOWN_TOOL / UNKNOWN_SKILL for a name that is elsewhere: where it is and the call that
   * reaches it, in message, hint and details. The call in `details.next` is the caller's call
   * redirected: it keeps the arguments and the top-level confirm sent (sentCallOf).
   */
  const misdirected = (code: "UNKNOWN_TOOL" | "UNKNOWN_SKILL", what: string, details: Record<string, unknown>, targets: readonly NamedTarget[], from: string, state: CallState): RuntimeError => {
    const { sentence, next } = directionsTo(targets, from, state.ctx.present, sentCallOf(state.request as RepairedRequest));
    return new RuntimeError(code, `${what}; ${sentence}`, { ...details, elsewhere: targets, next: next.length === 1 ? next[0] : next }, `${sentence}. Nothing was run.`);
  };

  // ── validate: schema-aware repairs, then the schema ─────────────────────────────────────
  const validate: Step = (state) => {
    const repairsBefore = state.repairs.length;
    try {
      checkArguments(state);
    } catch (error) {
      return afterRefusedByStoredSchema(state, error, repairsBefore);
    }
  };

  /**
   * Arguments refused against a stored catalog that no listing in this process has confirmed yet:
   * the server may have changed the tool's schema since (an upgraded `npx -y` package), so it is
   * asked for its tools before the refusal stands, once per call, as for a name it lacks. A changed
   * schema is this call's (its arguments checked again, the repairs made afresh, and access asked
   * again if the tool now changes data); an unchanged one, a tool gone, or a failed listing leaves
   * the refusal as it was.
   */
  const afterRefusedByStoredSchema = (state: CallState, error: unknown, repairsBefore: number): Promise<void> => {
    const plugin = state.plugin as ReadyPlugin;
    const stale = state.tool;
    if (!stale || state.relisted || !deps.relistTools || !(error instanceof RuntimeError) || error.code !== "ARG_VALIDATION_FAILED" || !deps.listedFromStore?.(plugin)) throw error;
    state.relisted = true;
    return deps.relistTools(plugin).then(
      async (fresh) => {
        const tool = fresh.find((t) => t.name === stale.name);
        if (!tool || canonicalJson(tool.inputSchema) === canonicalJson(stale.inputSchema)) throw error;
        const wrote = state.writes;
        state.tool = tool;
        state.writes = !deps.isReadOnly(plugin, tool);
        state.facts.mutating = state.writes;
        state.repairs.length = repairsBefore;
        if (state.writes !== wrote) await passGate(deps.accessPolicies, gateRequestFor(state));
        checkArguments(state);
      },
      (listing: unknown) => {
        deps.log.debug(`plugin '${plugin.manifest.prefix}': listing again after refused arguments failed: ${describeThrown(listing)}`);
        throw error;
      },
    );
  };

  /** The arguments against the tool's or skill's schema, repaired where it is safe; ARG_VALIDATION_FAILED otherwise. */
  const checkArguments = (state: CallState): void => {
    const meta = state.skill?.meta.args;
    const schema = state.tool ? state.tool.inputSchema : isSchemaLike(meta) ? meta : undefined;
    // Read as the validator reads it: names under a top-level `$ref` or `allOf` count. A skill
    // whose arguments are a sentence lists no names.
    const parameters = schema ? declaredPropertyNames(schema, schema) : isPlainObject(meta) ? Object.keys(meta) : undefined;
    const request = aliasDeclaredByTool(state.request as RepairedRequest, parameters, state.repairs);
    const what = state.tool ? `'${state.tool.name}'` : `skill '${state.skill?.name ?? ""}'`;
    const subject = state.tool ? { tool: state.tool.name } : { skill: state.skill?.name };
    if (!isPlainObject(request.arguments)) {
      const sent = typeof request.arguments === "string" ? unreadableArgumentsString(request.arguments) : describeKind(request.arguments);
      throw new RuntimeError("ARG_VALIDATION_FAILED", `'arguments' must be an object of the ${state.tool ? "tool" : "skill"}'s parameters, not ${sent}. Send it as a JSON object, e.g. "arguments": ${exampleArguments(state)}`, {
        ...subject,
        errors: [{ path: "", message: "must be an object" }],
      });
    }
    // What the repairs may take as known parameter names: the schema's, or a skill's name map
    // (if any) and `confirm`, which a skill without a schema may read itself.
    const owns = state.skill ? skillOwnsConfirm(state.skill) : false;
    const known = schema ?? { properties: { ...(typeof meta === "object" ? meta : {}), ...(owns ? { confirm: {} } : {}) } };
    const repaired = repairArguments(request.arguments, known, state.repairs);
    state.args = repaired.args;
    if (request.stray) {
      // A skill whose arguments are a sentence lists no names: its strays are said, not placed.
      state.args = placeStrayKeys(request.stray, state.args, parameters, { field: nameFieldOf(state.operation), what }, state.repairs);
    }
    const misplaced = repaired.misplacedConfirm ?? request.misplacedConfirm;
    if (misplaced) state.misplacedConfirm = misplaced;
    state.confirmed = request.confirm;
    if (state.skill && owns) {
      // Confirm is asked once: a skill that reads `confirm` from its own arguments gets the
      // top-level one there, and its own (declared) argument counts for the gate too.
      if (!request.confirm && state.args.confirm === true) {
        state.confirmed = true;
        state.repairs.push({ kind: "moved-confirm", message: `'confirm' was inside 'arguments'; it was read as the run's confirm (${isSchemaLike(meta) ? "this skill declares confirm as its own argument" : "this skill has no schema, so it may read confirm itself"})` });
      } else if (request.confirm && state.args.confirm === undefined) state.args = { ...state.args, confirm: true };
    }
    // Before the schema: "<integer>" for an integer is better said as the placeholder it is than as a wrong type.
    refusePlaceholders(state.args, what);
    if (schema) {
      const verdict = validateArguments(schema, state.args, what);
      const named = `${prefixOf(state.target)}/${state.tool?.name ?? state.skill?.name}`;
      if (!verdict.checked) deps.log.warn(`${named}: the schema cannot be compiled; arguments not validated`, { reason: verdict.reason });
      for (const { pattern, reason } of takeUnrunPatterns(schema)) deps.log.warn(`${named}: the schema's pattern ${quotedPattern(pattern)} is not checked (${reason}); its other checks apply`);
      if (state.tool) noteUndeclaredArguments(schema, state.args, state.tool.name, state.repairs);
    }
  };

  // ── gate: the policy chains (see gate.ts) ───────────────────────────────────────────────
  /** A sent `confirm` that was not a boolean, as the refusal names it; nothing made on the usual call (none was). */
  const unreadConfirmOf = (state: CallState): { unreadConfirm?: string } =>
    state.request?.confirmSent === undefined ? {} : { unreadConfirm: typeof state.request.confirmSent === "number" ? `the number ${state.request.confirmSent}` : describeArgumentValue(state.request.confirmSent) };

  /** The rule that made a tool a write, for the refusal (only worked out for a write). */
  const whyWrites = (plugin: ReadyPlugin, tool: ToolDescriptor, writes: boolean): { why?: string } => {
    const why = writes ? writeReason(plugin.manifest, tool) : undefined;
    return why ? { why } : {};
  };

  function gateRequestFor(state: CallState): GateRequest {
    const plugin = state.plugin as ReadyPlugin;
    const tool = state.tool as ToolDescriptor;
    const writes = state.writes === true;
    return withCallerSignal({
      session: state.session,
      plugin: plugin.manifest.prefix,
      via: "call" as const,
      target: tool.name,
      tool,
      arguments: state.args ?? state.request?.arguments,
      writes,
      mutating: writes && plugin.manifest.requireConfirm,
      ...whyWrites(plugin, tool, writes),
      confirmed: state.confirmed ?? state.request?.confirm === true,
      ...(state.misplacedConfirm ? { misplacedConfirm: state.misplacedConfirm } : {}),
      ...unreadConfirmOf(state),
    }, state.ctx);
  }

  /** Access (who may): right after the tool is resolved, before its arguments are looked at. */
  const authorize: Step = (state) => passGate(deps.accessPolicies, gateRequestFor(state));

  /** Confirmation (may this write run): after validation, so the human is asked only about a call that can run. */
  const gateCall: Step = (state) => {
    // One policy: called as it is, rather than through a chain made for it on every call.
    const request = gateRequestFor(state);
    const waiting = confirmationOf(state.ctx)(request);
    return waiting ? waiting.then(() => gatePassed(state, request)) : gatePassed(state, request);
  };

  const gatePassed = (state: CallState, request: GateRequest): void => {
    const confirmedBy = confirmedByOf(request);
    if (confirmedBy) state.facts.confirmedBy = confirmedBy;
    if (state.misplacedConfirm) {
      state.repairs.push({ kind: "dropped-misplaced-confirm", message: `the 'confirm' in ${state.misplacedConfirm} was not honoured: confirm belongs at the top level, next to 'toolName'` });
    }
    state.adapter = (state.plugin as ReadyPlugin).adapter;
  };

  type SkillRun = {
    misplacedConfirm?: string;
    unreadConfirm?: string;
    refusals?: RuntimeError[];
    /** Steps naming a tool the plugin does not have: the skill's own fault, said as a warning when it catches one and answers. */
    brokenSteps?: RuntimeError[];
    interrupts?: ConfirmInterrupt[];
    facts?: CallFacts;
    skillArguments?: unknown;
    /** The run's deadline once it is running (it aborts at the deadline and on the client's cancel). */
    deadline?: () => Cancellation | undefined;
    /** Filled with every step sent on to the plugin, for the deadline's answer. */
    sent?: SentStep[];
    /** The run in the command line's write log: told of each step that changes data it sends. */
    loggedRun?: LoggedSkillRun;
    /** Whether the run has settled (its answer is sent): the gate is closed then. */
    over?: () => boolean;
    /**
     * The gate's decisions still pending, for steps the run asked for without waiting on them (a
     * call started and not awaited): the run's answer waits for them, so a refusal is its answer.
     */
    deciding?: Set<Promise<void>>;
  };

  function adapterForSkill(session: Session, plugin: ReadyPlugin, skill: string, confirmed: boolean, ctx: OperationContext, run: { over?: () => boolean; context?: () => CallContext | undefined } = {}): Adapter {
    return gatedAdapter(plugin.adapter, skillGateFor(session, plugin, skill, confirmed, ctx, run.over ? { over: run.over } : {}), run.context);
  }

  /** The gate every request of a skill's run goes through (its adapter's, and the calls it approves up front). */
  function skillGateFor(session: Session, plugin: ReadyPlugin, skill: string, confirmed: boolean, ctx: OperationContext, run: SkillRun): SkillGate {
    const { misplacedConfirm, unreadConfirm, refusals, brokenSteps, interrupts, facts, sent, loggedRun, deciding } = run;
    const chain = policies(ctx);
    const pass = async (request: GateRequest) => {
      try {
        await passGate(chain, request);
        if (facts) {
          const confirmedBy = strongerConfirmation(facts.confirmedBy, confirmedByOf(request));
          if (confirmedBy) facts.confirmedBy = confirmedBy;
        }
      } catch (error) {
        // Kept, so a skill that catches the refusal (or the pending question) and answers normally still stops.
        if (error instanceof ConfirmInterrupt) interrupts?.push(error);
        else if (error instanceof RuntimeError) refusals?.push(error);
        throw error;
      }
    };
    /** A step's whole decision (its tool looked up, then the gate), kept in `deciding` until it is made. */
    const tracked = (decision: Promise<void>): Promise<void> => {
      if (!deciding) return decision;
      deciding.add(decision);
      const done = () => void deciding.delete(decision);
      decision.then(done, done);
      return decision;
    };
    // Spread into each step's request below, so the signal is a plain field here (skills are not the hot path).
    const caller = ctx.cancel ?? ctx.signal;
    /**
     * A run that was stopped (deadline, client cancel) or has answered is over, but its code may
     * go on (a timer, a promise it did not wait for): every later step is refused, so nothing is
     * sent after the caller has its answer. Looked at again after each wait of the gate (a
     * confirmation form can outlast the deadline). An approved call handed to a job during the
     * run does not come back here: it still runs, as it was approved to.
     */
    const refuseIfStopped = (step: string): void => {
      for (const stop of [run.deadline?.(), caller]) {
        const refusal = stop && refuseAfterStop(skill, step, stop);
        if (!refusal) continue;
        deps.log.warn(`${plugin.manifest.prefix}:${skill} asked for step '${step}' after its run was stopped; it was not sent`);
        throw refusal;
      }
      if (run.over?.()) {
        deps.log.warn(`${plugin.manifest.prefix}:${skill} asked for step '${step}' after its run had answered; it was not sent`);
        throw refuseAfterAnswer(skill, step);
      }
    };
    const base = {
      session,
      plugin: plugin.manifest.prefix,
      via: "skill" as const,
      skill,
      skillArguments: run.skillArguments ?? {},
      confirmed,
      ...(misplacedConfirm ? { misplacedConfirm } : {}),
      ...(unreadConfirm ? { unreadConfirm } : {}),
      ...(caller ? { signal: signalOf(caller) } : {}),
    };
    const call = async (name: string, args: unknown): Promise<void> => {
      refuseIfStopped(name);
      const tools = await deps.toolsOf(plugin);
      const tool = tools.find((t) => t.name === name);
      // A step naming a tool the plugin does not have is the skill's own fault: said as that, and
      // nothing is called (a confirm question about it would let confirm: true send it on). Not a
      // refusal: a skill that catches it (a fallback to an older tool) and answers has its answer.
      if (!tool) {
        const broken = brokenSkillStep(plugin, skill, name, tools);
        brokenSteps?.push(broken);
        throw broken;
      }
      const writes = !deps.isReadOnly(plugin, tool);
      // The skill run counts as a write (audit) from its first step that changes data, or
      // tried to: set before the gate, so a refused step is audited as a refused _call is.
      if (writes && facts) facts.mutating = true;
      await pass({ ...base, target: name, tool, arguments: args, writes, mutating: writes && plugin.manifest.requireConfirm, ...whyWrites(plugin, tool, writes) });
      // Checked again after the gate's waits: a confirmation form can outlast the deadline.
      refuseIfStopped(name);
      sent?.push({ target: name, writes });
      if (writes) loggedRun?.wrote(`${plugin.manifest.prefix}/${name}`);
    };
    const method = async (name: string, args: unknown[]): Promise<void> => {
      refuseIfStopped(name);
      if (facts) facts.mutating = true;
      await pass({ ...base, target: name, arguments: args, writes: true, mutating: plugin.manifest.requireConfirm });
      refuseIfStopped(name);
      sent?.push({ target: name, writes: true });
      loggedRun?.wrote(`${plugin.manifest.prefix}/${name}`);
    };
    return { call: (name, args) => tracked(call(name, args)), method: (name, args) => tracked(method(name, args)) };
  }

  /** A skill's step that calls a tool its plugin does not have: the skill is broken, and the answer names the tool (the step runner names the step). */
  const brokenSkillStep = (plugin: ReadyPlugin, skill: string, name: string, tools: readonly ToolDescriptor[]): RuntimeError => {
    const prefix = plugin.manifest.prefix;
    const near = closestNames(name, tools.map((t) => t.name));
    return new RuntimeError(
      "UNKNOWN_TOOL",
      `skill '${skill}' calls tool '${echoed(name)}', which plugin '${prefix}' does not have: the skill is broken${near.length ? ` (the plugin has ${near.map((n) => `'${n}'`).join(", ")})` : ""}; that call was not made`,
      { skill, toolName: echoed(name) },
      `The skill itself is broken, not your call: retrying it fails the same way. Tell the user that skill '${skill}' of plugin '${prefix}' needs fixing, or do its work with the plugin's tools (find them with its _discover tool, or agent_tools_search).`,
    );
  };

  const gateSkill: Step = (state) => {
    const plugin = state.plugin as ReadyPlugin;
    const skill = state.skill as Skill;
    // A command line's skill run that sends a write is named if the line is stopped (write-log.ts), as a tool's write is.
    const loggedRun = (state.loggedRun = state.ctx.writeLog?.skillRun(`${plugin.manifest.prefix}:${skill.name}`));
    state.refusals = [];
    state.brokenSteps = [];
    state.interrupts = [];
    state.skillGate = skillGateFor(state.session, plugin, skill.name, state.confirmed === true, state.ctx, {
      ...(state.misplacedConfirm ? { misplacedConfirm: state.misplacedConfirm } : {}),
      ...unreadConfirmOf(state),
      refusals: state.refusals,
      brokenSteps: state.brokenSteps,
      interrupts: state.interrupts,
      facts: state.facts,
      skillArguments: state.args,
      deadline: () => state.deadline,
      sent: (state.sent = []),
      ...(loggedRun ? { loggedRun } : {}),
      over: () => state.runOver === true,
      deciding: (state.deciding = new Set()),
    });
    state.adapter = gatedAdapter(plugin.adapter, state.skillGate, () => state.runContext);
  };

  // ── invoke: the adapter or the skill, under the deadline and the caller's cancel ────────
  // Not an async function, for the same reason as resolveTool.
  const invoke: Step = (state) => {
    const plugin = state.plugin as ReadyPlugin;
    const prefix = plugin.manifest.prefix;
    const adapter = state.adapter as Adapter;
    const args = state.args as Record<string, unknown>;
    const relay = state.ctx.relay;
    const session = state.session;
    // `relayed`: false for a skill's steps, which share the run's one progressToken (a second step's
    // progress would go back below the first's, which MCP forbids); a skill passes `context` to relay.
    const callContext = (deadline: DeadlineScope, resultRedactor?: Redactor, relayed = true) => ({
      // Read through: an AbortSignal is made only for an adapter that looks at it.
      get signal() {
        return deadline.signal;
      },
      cancel: deadline,
      // Made as withDeadline starts its timer: when that timer fires.
      deadline: Date.now() + deps.timeoutMs,
      sessionId: session.id,
      log: deps.log,
      // Made on first use: most calls start no job, and each store is a cancel listener and a disposer for the session.
      get jobs() {
        return deps.jobsOf(session, prefix);
      },
      ...(relay && relayed ? { relay } : {}),
      ...(resultRedactor ? { resultRedactor } : {}),
      warn: (message: string) => (state.warnings ??= []).push(message),
    });
    const what = state.tool ? `tool '${prefix}/${state.tool.name}'` : `skill '${prefix}:${state.skill?.name ?? ""}'`;
    // Whether writes may run, read at each use (a skill's `context.confirmed`): the model's
    // `confirm`, a plugin that needs none, a user who approved one in this run, or a client that
    // will ask its user at the first write (the model's confirm is not looked at then), so a skill
    // that skips writes unless confirmed still writes for a client that asks.
    const mayWrite = (): boolean =>
      state.confirmed === true ||
      !plugin.manifest.requireConfirm ||
      state.facts?.confirmedBy === "user" ||
      (state.ctx.confirmation === undefined && state.ctx.confirmer !== undefined && deps.confirmPolicyOf(prefix) === "elicit");
    const runSkill = async (skill: Skill, deadline: DeadlineScope): Promise<unknown> => {
      state.deadline = deadline;
      // Object.assign, not a spread: a spread would read (and so make) the job store.
      const gate = state.skillGate as SkillGate;
      const context = callContext(deadline);
      // The job store read through too: made only when a call is approved.
      const background = { sessionId: session.id, log: deps.log, get jobs() { return deps.jobsOf(session, prefix); } };
      // What its steps are sent with when they bring no context (step-context.ts): the run's, without the relay.
      state.runContext = callContext(deadline, undefined, false);
      // Called as withDeadline starts its timer, so `deadline` here is when that timer fires.
      let answer: unknown;
      try {
        answer = await skill.run(
          adapter,
          args,
          Object.defineProperty(Object.assign(context, {
            deadline: Date.now() + deps.timeoutMs,
            approveCall: (name: string, callArgs?: Record<string, unknown>) => approveCall(plugin.adapter, gate, background, name, callArgs),
          }), "confirmed", { get: mayWrite, enumerable: true }),
        );
        // Steps the run started without waiting on them (a call it did not await, as 0.2.7's
        // background-job skills do) are decided before it answers: a refusal is then the run's
        // answer (CONFIRM_REQUIRED, below), not a failure found later by whoever reads the job.
        while (state.deciding?.size) await Promise.allSettled([...state.deciding]);
      } catch (error) {
        // A run that asked the user to confirm a write and then failed: the question wins. What
        // it threw is most likely that question caught and wrapped (a skill's own error type,
        // "creating … failed: waiting for the user …"), and the run goes again once it is answered.
        throw state.interrupts?.[0] ?? error;
      } finally {
        // The run has answered (or thrown): its gate closes, whatever its code still does later.
        state.runOver = true;
        // Ended by the stop, it stays in the line's write log as running: its steps may still be.
        state.loggedRun?.ended(deadline.aborted);
      }
      // The user has a question to answer first (reads before it are run again on the retry).
      const pending = state.interrupts?.[0];
      if (pending) throw pending;
      // The gate refused a write and the skill caught it: the run did not do what was asked.
      const refused = state.refusals?.[0];
      if (refused) throw new RuntimeError(refused.code, refused.message, { ...refused.details, skillResult: answer }, refused.hasOwnHint ? refused.hint : undefined, { cause: refused });
      const failed = skillReportedFailure(`${prefix}:${skill.name}`, answer, (text) => String(deps.redact(text)));
      if (failed) throw failed;
      // It asked for a tool the plugin does not have, caught that and answered: its answer stands,
      // and the answer says which call was not made (the skill may need fixing).
      for (const broken of state.brokenSteps ?? []) (state.warnings ??= []).push(broken.message);
      return answer;
    };
    return withDeadline(
      (deadline) => (state.tool ? loggedWrite(state, `${prefix}/${state.tool.name}`, deadline, () => adapter.call(state.tool!.name, args, callContext(deadline, deps.redactor))) : runSkill(state.skill as Skill, deadline)),
      deps.timeoutMs,
      state.ctx.cancel ?? state.ctx.signal,
      what,
    ).then(
      (output) => {
        state.output = output;
        if (state.tool) deps.onAnswered?.(prefix);
      },
      (error: unknown) => {
        // What the backend said gets the call's name in front; the runtime's own errors (the
        // deadline and the client's cancel, the gate inside a skill) already say what they are.
        if (error instanceof ConfirmInterrupt) throw error;
        // A stopped skill run or write: the hint says what may already have happened (stopped-run.ts).
        // Past the deadline before the server had started: the call never reached it; its start failed.
        // Asked of the plugin's own adapter: a skill's gated view is the skill's, not the runtime's.
        const start = startOrDeadline(error, plugin.adapter);
        if (start !== error) throw fromThrown(start, `${what} failed`);
        if (error instanceof DeadlineError) throw stoppedRunError(error, state.skill ? { skill: state.skill.name, sent: state.sent ?? [] } : { tool: state.tool?.name ?? "", writes: state.writes === true });
        const own = error instanceof SkillReportedFailure || (error instanceof RuntimeError && error.code !== "UPSTREAM_ERROR");
        // A skill's own bug (a TypeError its code raised, not one its adapter passed on) is the plugin's fault, said so by the hint.
        const failed = own ? error : fromThrown(error, `${what} failed`, { pluginCode: state.skill !== undefined && !cameFromAdapter(error) });
        // The downstream's own words (before the runtime's framing, which names the tool too).
        if (!own && state.tool && saysToolUnknown(describeThrown(error), state.tool.name)) return afterUnknownToDownstream(state, failed);
        // A skill that failed after sending writes: they may have taken effect; say which (stopped-run.ts).
        if (state.skill) throw failedRunError(failed, state.skill.name, state.sent ?? [], hintOfSkill(error));
        // A write its adapter stopped (its own timeout) or saw die mid-run: it may have changed data (stopped-run.ts).
        throw state.writes === true && state.tool ? cutOffWriteError(failed, state.tool.name) : failed;
      },
    );
  };

  // ── shape: unwrap an MCP result, redact it (the fleet's one redactor), cap it ──────────
  const shape: Step = (state) => {
    if (state.tool && isToolErrorResult(state.output) && saysToolUnknown(toolErrorText(state.output), state.tool.name)) {
      return afterUnknownToDownstream(state, toolReportedError(state.output, (text) => String(deps.redact(text))));
    }
    const prefix = (state.plugin as ReadyPlugin).manifest.prefix;
    const what = state.tool ? `tool '${prefix}/${state.tool.name}'` : `skill '${prefix}:${state.skill?.name ?? ""}'`;
    const maxChars = state.ctx.maxResultChars ?? deps.maxResultChars;
    const { result, truncated, wholeInExec, media } = shapeResult(state.output, deps.redact, maxChars, what);
    state.result = result;
    if (media) state.media = media;
    if (!truncated) return undefined;
    state.truncated = truncated;
    // A call that changed data is not to be repeated for its whole result: no exec line for it.
    if (state.writes === true || state.sent?.some((step) => step.writes)) {
      state.truncated = { ...truncated, note: truncationNote(maxChars, "changed data") };
      return undefined;
    }
    // Only a cut result waits (for the exec command's name): the usual answer stays synchronous.
    // One exec would not get whole keeps its note (ask for less, and why).
    return state.ctx.execLine && wholeInExec ? noteExecLine(state, truncated, maxChars, state.ctx.execLine) : undefined;
  };

  /**
   * A cut result's note names the agent_tools_exec command line that makes the same call, with the
   * plugin's real command (a prefix that is a shell word is `plugin-<prefix>` there) and the call's
   * arguments, masked like the result, unless they would make the note long.
   */
  async function noteExecLine(state: CallState, truncated: Truncation, maxChars: number, execLine: (step: NextStep) => Promise<string>): Promise<void> {
    const args = deps.redact(state.args ?? {}) as Record<string, unknown>;
    const shown = (JSON.stringify(args)?.length ?? 0) <= EXEC_LINE_ARGUMENT_CHARS;
    const step: NextStep = { plugin: (state.plugin as ReadyPlugin).manifest.prefix, ...(state.skill ? { skill: state.skill.name } : { toolName: state.tool?.name ?? "" }), arguments: shown ? args : {} };
    const line = await execLine(step).catch(() => undefined);
    if (line !== undefined) state.truncated = { ...truncated, note: truncationNote(maxChars, { line, argumentsLeftOut: !shown }) };
  }

  // Tracing off: the steps as they are, nothing wrapped.
  const t = deps.tracing ? traced<CallState> : (_name: string, step: Step): Step => step;
  const callChain = sequence<CallState>([t("repair", repair), t("loop_check", loopCheck), t("resolve_plugin", resolvePlugin), t("resolve_tool", resolveTool), t("authorize", authorize), t("validate", validate), t("gate", gateCall), t("invoke", invoke), t("shape", shape)]);
  const skillChain = sequence<CallState>([t("repair", repair), t("loop_check", loopCheck), t("resolve_plugin", resolvePlugin), t("resolve_skill", resolveSkill), t("validate", validate), t("gate", gateSkill), t("invoke", invoke), t("shape", shape)]);

  function run(operation: PipelineOperation, session: Session, target: string | LoadedPlugin, raw: unknown, ctx: OperationContext): Promise<OperationResult> {
    const state: CallState = { session, operation, target, raw, ctx, repairs: [...(ctx.repairs ?? [])], facts: { mutating: false }, trace: deps.tracing?.start(operation, session) };
    const meta = new RunMeta(state, deps);
    if (operation === "call") return frame(session, meta, "call", () => runChecked(callChain, state, callPayload));
    return frame(session, meta, "skill", () => runChecked(skillChain, state, skillPayload));
  }

  const callPayload = (state: CallState) => ({ ok: true as const, plugin: prefixOf(state.plugin ?? state.target), toolName: (state.tool as ToolDescriptor).name, result: state.result, ...(state.truncated ? { truncated: state.truncated } : {}), ...(state.warnings ? { warnings: state.warnings } : {}) });
  const skillPayload = (state: CallState) => ({ ok: true as const, plugin: prefixOf(state.plugin ?? state.target), skill: (state.skill as Skill).name, result: state.result, ...(state.truncated ? { truncated: state.truncated } : {}), ...(state.warnings ? { warnings: state.warnings } : {}) });

  return {
    call: (session, target, raw, ctx = {}) => run("call", session, target, raw, ctx),
    runSkill: (session, target, raw, ctx = {}) => run("run_skill", session, target, raw, ctx),
    policies,
    adapterForSkill,
  };
}


/** Whether what a skill's run threw (or answered with `isError`) carries a hint its author wrote. */
function hintOfSkill(error: unknown): boolean {
  if (error instanceof SkillReportedFailure) return error.authoredHint;
  if (error instanceof RuntimeError) return error.hasOwnHint;
  const hint = error && typeof error === "object" ? (error as { hint?: unknown }).hint : undefined;
  return typeof hint === "string" && hint.trim() !== "";
}
