import type { Confirmer } from "../runtime/confirm.js";

/**
 * A command line's deadline that does not run while the user is asked to confirm a write. The
 * question has its own deadline (AGENT_TOOLS_CONFIRM_TIMEOUT_MS, 120 s by default) and its own
 * CONFIRM_FAILED answer; a line's deadline (30 s by default) running meanwhile would stop the
 * line while the user is still reading. The clock stops while a question is open and goes on
 * with the time that was left when the last open question is answered.
 */
export interface QuestionClock {
  /** `asker` with its questions pausing the clock and withdrawn when `stop` aborts (the client is sent a cancellation). */
  confirmer(asker: Confirmer): Confirmer;
  /** True when the line was stopped while a question was open. */
  readonly withdrew: boolean;
  /**
   * Fire the deadline now if its time is up: the timer cannot fire while a line of shell builtins
   * keeps the thread (thread-hold.ts), so the line's steps look too. Date.now: just-bash's defence
   * in depth lets a running line read it.
   */
  check(): void;
  dispose(): void;
}

export function startQuestionClock(timeoutMs: number, onDeadline: () => void, stop: AbortSignal): QuestionClock {
  let remainingMs = timeoutMs;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined = setTimeout(() => fire(), remainingMs);
  let open = 0;
  let withdrew = false;
  let fired = false;
  const fire = (): void => {
    if (fired) return;
    fired = true;
    clearTimeout(timer);
    timer = undefined;
    onDeadline();
  };
  const pause = (): void => {
    if (open++ > 0) return;
    clearTimeout(timer);
    timer = undefined;
    remainingMs = Math.max(0, remainingMs - (Date.now() - startedAt));
  };
  const resume = (): void => {
    if (--open > 0 || stop.aborted) return;
    startedAt = Date.now();
    timer = setTimeout(() => fire(), remainingMs);
  };
  return {
    confirmer: (asker) => async (question) => {
      pause();
      const withdraw = (): void => {
        withdrew = true;
      };
      stop.addEventListener("abort", withdraw, { once: true });
      try {
        return await asker(question, stop);
      } finally {
        stop.removeEventListener("abort", withdraw);
        resume();
      }
    },
    get withdrew() {
      return withdrew;
    },
    check() {
      if (open === 0 && !fired && Date.now() - startedAt >= remainingMs) fire();
    },
    dispose() {
      clearTimeout(timer);
    },
  };
}
