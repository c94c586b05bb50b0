// Runs a skill's steps in order and, when one fails, says which: the error keeps the failing
// tool's code and hint, its message starts with the step, and `details` lists what had finished.

export async function runSteps(adapter, steps) {
  const results = {};
  const completed = [];
  for (const [index, step] of steps.entries()) {
    const args = typeof step.args === "function" ? step.args(results) : step.args;
    try {
      results[step.name] = await adapter.call(step.tool, args);
    } catch (error) {
      const cause = error instanceof Error ? error : new Error(String(error));
      const failure = new Error(`step ${index + 1} of ${steps.length} (${step.name}: ${step.tool}) failed: ${cause.message}`);
      failure.code = typeof cause.code === "string" ? cause.code : "UPSTREAM_ERROR";
      if (typeof cause.hint === "string") failure.hint = cause.hint;
      failure.details = { step: step.name, tool: step.tool, completed: [...completed], ...(cause.details ? { upstream: cause.details } : {}) };
      throw failure;
    }
    completed.push(step.name);
  }
  return results;
}
