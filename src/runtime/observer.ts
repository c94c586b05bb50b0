import type { Session } from "./session.js";

/**
 * What the runtime tells its observers (metrics, the audit log) about each operation once it has
 * an outcome. Observers are awaited before the answer goes out, so an acknowledged write is in the
 * audit log; an observer that fails is logged and never changes the answer, except for the audit
 * log's note that it could not record a write (ObserverNote).
 */

/**
 * Who let a write through the confirmation gate: the human (a confirmation form the client showed
 * them), the model (its `confirm: true`), or nobody because the plugin's writes need no confirmation.
 */
export type ConfirmedBy = "user" | "model" | "not needed";

/** Facts an operation learns on its way (whether it changed data, and who confirmed it). */
export interface CallFacts {
  mutating: boolean;
  /** Set once the gate let a write through (absent for a write refused before or at the gate). */
  confirmedBy?: ConfirmedBy;
}

export interface CallEvent {
  session: Session;
  operation: string;
  plugin: string;
  target?: string;
  /** "ok" or the error code. */
  outcome: string;
  startedAt: number;
  durationMs: number;
  /** The call reached (or was refused before) a tool that changes data, or a skill that called one. */
  mutating: boolean;
  /** The tool's or skill's arguments as sent (observers redact them). */
  arguments?: unknown;
  /** Who confirmed the write the gate let through. */
  confirmedBy?: ConfirmedBy;
}

/**
 * What an observer may add to the answer: a write whose audit entry could not be recorded says so
 * (`audited: false` and a warning), so an answer without that note is always in the log.
 */
export interface ObserverNote {
  unaudited: string;
}

export type CallObserver = ((event: CallEvent) => void | ObserverNote | undefined | Promise<void | ObserverNote | undefined>) & {
  /** Told only of operations that changed data (or tried to): the others cost it nothing, not even the event (the audit log). */
  readonly mutatingOnly?: boolean;
};

/**
 * Traces of operations (OpenTelemetry in the gateway, gateway/tracing.ts). The runtime only knows
 * this interface: without a tracing nothing is wrapped and no span exists (the default costs
 * nothing). An operation's trace has one child per pipeline step it ran.
 */
export interface Tracing {
  start(operation: string, session: Session): OperationTrace;
}

export interface OperationTrace {
  /** A pipeline step began; the returned function ends it (with the error code when it failed). */
  step(name: string): (failure?: string) => void;
  end(facts: { plugin: string; target?: string; outcome: string; mutating: boolean }): void;
}
