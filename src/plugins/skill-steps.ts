import type { Adapter } from "../adapters/types.js";
import { waitsForUser } from "../confirm-interrupt.js";

/**
 * A skill's steps run in order, for skills that are a fixed sequence of tool calls. When a step
 * fails, the error says which one: it keeps the failing tool's code and hint, its message starts
 * with the step, and `details` lists what had finished. A step may be skipped (`skip(results)`
 * true: its result is null) or may accept some failures (`tolerate(error)` true: its result is
 * null and the error's message is kept in `notes`). A step may check its result's shape
 * (`check(result)` answers a problem sentence): a result the skill cannot read fails that step
 * with UPSTREAM_ERROR (hint: `checkHint`, else a generic one), rather than the skill failing
 * later on a property of the wrong thing. A step that stops to ask the user to confirm it (waitsForUser)
 * is neither wrapped nor tolerated: that goes out as it is.
 * Shared by the bundled skills so each plugin need not carry its own copy.
 */

export interface SkillStep {
  /** The key of this step's result in `results`. */
  name: string;
  tool: string;
  args: Record<string, unknown> | ((results: Record<string, unknown>) => Record<string, unknown>);
  skip?: (results: Record<string, unknown>) => boolean;
  skipReason?: string;
  tolerate?: (error: Error) => boolean;
  /** A problem with the result's shape, said as a sentence ("stdout is text, not a list"); undefined when it is as expected. */
  check?: (result: unknown) => string | undefined;
  /** What to do when `check` finds a problem, where the skill knows better than the generic hint (a setting to correct). */
  checkHint?: string;
}

export interface StepFailure extends Error {
  code: string;
  hint?: string;
  details: { step: string; tool: string; completed: string[]; status?: number; upstream?: unknown; problem?: string };
}

function stepFailure(index: number, count: number, step: SkillStep, completed: readonly string[], what: string, code: string, extra: Partial<StepFailure["details"]> = {}, hint?: string): StepFailure {
  const failure = new Error(`step ${index + 1} of ${count} (${step.name}: ${step.tool}) ${what}`) as StepFailure;
  failure.code = code;
  if (hint !== undefined) failure.hint = hint;
  failure.details = { step: step.name, tool: step.tool, completed: [...completed], ...extra };
  return failure;
}

export async function runSteps(adapter: Pick<Adapter, "call">, steps: readonly SkillStep[]): Promise<{ results: Record<string, unknown>; notes: string[] }> {
  const results: Record<string, unknown> = {};
  const notes: string[] = [];
  const completed: string[] = [];
  for (const [index, step] of steps.entries()) {
    if (step.skip?.(results)) {
      results[step.name] = null;
      notes.push(`${step.name}: skipped (${step.skipReason ?? "not applicable"})`);
      continue;
    }
    const args = typeof step.args === "function" ? step.args(results) : step.args;
    let result: unknown;
    try {
      result = await adapter.call(step.tool, args);
    } catch (error) {
      // The user is being asked to confirm this step: not a failure to wrap or tolerate (see waitsForUser).
      if (waitsForUser(error)) throw error;
      const cause = (error instanceof Error ? error : new Error(String(error))) as Error & { code?: unknown; hint?: unknown; status?: unknown; details?: unknown };
      if (step.tolerate?.(cause)) {
        results[step.name] = null;
        notes.push(`${step.name}: ${cause.message}`);
        continue;
      }
      throw stepFailure(
        index,
        steps.length,
        step,
        completed,
        `failed: ${cause.message}`,
        typeof cause.code === "string" ? cause.code : "UPSTREAM_ERROR",
        { ...(typeof cause.status === "number" ? { status: cause.status } : {}), ...(cause.details ? { upstream: cause.details } : {}) },
        typeof cause.hint === "string" ? cause.hint : undefined,
      );
    }
    const problem = step.check?.(result);
    if (problem) {
      throw stepFailure(index, steps.length, step, completed, `answered something the skill cannot read: ${problem}`, "UPSTREAM_ERROR", { problem }, step.checkHint ?? `The tool '${step.tool}' answered in a shape this skill does not expect (a different version of what it calls?): call '${step.tool}' directly to see its answer, and tell the user.`);
    }
    results[step.name] = result;
    completed.push(step.name);
  }
  return { results, notes };
}
