import type { Adapter } from "../adapters/types.js";

/**
 * A skill's steps run in order, for skills that are a fixed sequence of tool calls. When a step
 * fails, the error says which one: it keeps the failing tool's code and hint, its message starts
 * with the step, and `details` lists what had finished. A step may be skipped (`skip(results)`
 * true: its result is null) or may accept some failures (`tolerate(error)` true: its result is
 * null and the error's message is kept in `notes`). Shared by the bundled skills so each plugin
 * need not carry its own copy.
 */

export interface SkillStep {
  /** The key of this step's result in `results`. */
  name: string;
  tool: string;
  args: Record<string, unknown> | ((results: Record<string, unknown>) => Record<string, unknown>);
  skip?: (results: Record<string, unknown>) => boolean;
  skipReason?: string;
  tolerate?: (error: Error) => boolean;
}

export interface StepFailure extends Error {
  code: string;
  hint?: string;
  details: { step: string; tool: string; completed: string[]; status?: number; upstream?: unknown };
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
    try {
      results[step.name] = await adapter.call(step.tool, args);
    } catch (error) {
      const cause = (error instanceof Error ? error : new Error(String(error))) as Error & { code?: unknown; hint?: unknown; status?: unknown; details?: unknown };
      if (step.tolerate?.(cause)) {
        results[step.name] = null;
        notes.push(`${step.name}: ${cause.message}`);
        continue;
      }
      const failure = new Error(`step ${index + 1} of ${steps.length} (${step.name}: ${step.tool}) failed: ${cause.message}`) as StepFailure;
      failure.code = typeof cause.code === "string" ? cause.code : "UPSTREAM_ERROR";
      if (typeof cause.hint === "string") failure.hint = cause.hint;
      failure.details = {
        step: step.name,
        tool: step.tool,
        completed: [...completed],
        ...(typeof cause.status === "number" ? { status: cause.status } : {}),
        ...(cause.details ? { upstream: cause.details } : {}),
      };
      throw failure;
    }
    completed.push(step.name);
  }
  return { results, notes };
}
