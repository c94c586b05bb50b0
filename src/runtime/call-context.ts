import type { CallRelay } from "../adapters/relay.js";
import type { CallContext, Logger } from "../adapters/types.js";
import type { Redactor } from "../adapters/shared/redact.js";
import { WithLazySignal, type Cancel } from "../cancel.js";
import type { JobStore } from "./jobs.js";
import type { Session } from "./session.js";

/** What the pipeline's invoke step knows when it makes a call's context. */
export interface CallContextParts {
  deadline: Cancel;
  session: Session;
  prefix: string;
  log: Logger;
  /** Makes the session's job store of a plugin (on the first read of `jobs`; called as its method). */
  jobs: { jobsOf(session: Session, prefix: string): JobStore };
  relay: CallRelay | undefined;
  /** A tool's call only: the redactor its result passes through (CallContext.resultRedactor). */
  resultRedactor: Redactor | undefined;
  /** A tool's call only: the deadline's length (CallContext.deadlineMs). */
  deadlineMs: number | undefined;
}

/**
 * The CallContext the pipeline hands an adapter or a skill: `signal` and `jobs` are made on first
 * read (most calls read neither). Both are own, enumerable getters, in the order the object
 * literal this replaces had its keys, so a spread or Object.assign of a context (a skill, a module
 * adapter) sees the same keys and values; but the getters are shared functions, not closures made
 * per call, so contexts share hidden classes instead of each being a dictionary-mode object
 * (cancel.ts, WithLazySignal).
 */
class PipelineCallContext extends WithLazySignal {
  readonly #session: Session;
  readonly #prefix: string;
  readonly #jobs: CallContextParts["jobs"];

  static readonly #jobStore: PropertyDescriptor = {
    get(this: PipelineCallContext): JobStore {
      return this.#jobs.jobsOf(this.#session, this.#prefix);
    },
    enumerable: true,
    configurable: true,
  };

  constructor(parts: CallContextParts) {
    super(parts.deadline);
    this.#session = parts.session;
    this.#prefix = parts.prefix;
    this.#jobs = parts.jobs;
    const own = this as unknown as Record<string, unknown>;
    own.cancel = parts.deadline;
    own.sessionId = parts.session.id;
    own.log = parts.log;
    Object.defineProperty(this, "jobs", PipelineCallContext.#jobStore);
    if (parts.relay) own.relay = parts.relay;
    if (parts.resultRedactor) own.resultRedactor = parts.resultRedactor;
    if (parts.deadlineMs !== undefined) own.deadlineMs = parts.deadlineMs;
  }
}

export function pipelineCallContext(parts: CallContextParts): CallContext {
  return new PipelineCallContext(parts) as unknown as CallContext;
}
