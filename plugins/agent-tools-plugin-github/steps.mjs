// Runs a skill's steps in order and, when one fails, says which: the error keeps the failing
// tool's code and hint, its message starts with the step, and `details` lists what had finished.
// A step may be skipped (`skip(results)` true: its result is null) or may accept some failures
// (`tolerate(error)` true: its result is null and the error's message is kept in `notes`).

export async function runSteps(adapter, steps) {
  const results = {};
  const notes = [];
  const completed = [];
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
      const cause = error instanceof Error ? error : new Error(String(error));
      if (step.tolerate?.(cause)) {
        results[step.name] = null;
        notes.push(`${step.name}: ${cause.message}`);
        continue;
      }
      const failure = new Error(`step ${index + 1} of ${steps.length} (${step.name}: ${step.tool}) failed: ${cause.message}`);
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
