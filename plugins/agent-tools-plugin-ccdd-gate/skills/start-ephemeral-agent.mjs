import { skillError } from "agent-tools-runtime/plugin";

// The agent run takes longer than one call may: it becomes a background job of this session and
// the answer is its id. The job lives in the server's memory only; a restart loses it.
export const meta = {
  description: "Start a short-lived agent (ccdd-gate's run_ephemeral_agent) on a task in the background and answer a job id at once; poll it with ephemeral-agent-status.",
  args: {
    type: "object",
    properties: {
      task: { type: "string", minLength: 1, description: "What the agent should do" },
      steps: { type: "integer", minimum: 1, maximum: 20, description: "How many steps it may take (default 3)" },
      step_ms: { type: "integer", minimum: 0, description: "Stand-in pacing per step, in milliseconds" },
    },
    required: ["task"],
    additionalProperties: false,
  },
  related: [{ target: "ccdd:ephemeral-agent-status", why: "to see whether the run has finished and read its result" }],
};

export async function run(adapter, args, context) {
  // The job outlives this call, and the gate can ask the user (or read the run's confirm) only
  // while the call is open: the write is approved here, before the job starts, and the job runs
  // exactly that approved call under its own signal (cancelling the job aborts it). A refusal or
  // a declined question is this skill's answer, not a failed job later.
  if (typeof context?.approveCall !== "function") {
    throw skillError("UPSTREAM_ERROR", "start-ephemeral-agent needs a runtime whose skill context offers approveCall to start a write in the background");
  }
  const runAgent = await context.approveCall("run_ephemeral_agent", args);
  const jobId = await context.jobs.start(runAgent, { kind: "run_ephemeral_agent" });
  return {
    jobId,
    state: "running",
    next: `agent_tools_ccdd_run_skill {"skill":"ephemeral-agent-status","arguments":{"jobId":"${jobId}"}}`,
    note: "Jobs are kept in this server's memory only: a restart loses them.",
  };
}
