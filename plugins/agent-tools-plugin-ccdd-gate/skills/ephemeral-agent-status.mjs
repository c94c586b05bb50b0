// Reads the session's job store; without a jobId it lists every agent run kept.
export const meta = {
  description: "State of an agent run started with start-ephemeral-agent (running, succeeded with its result, or failed with the error); without jobId, every run kept in this session.",
  args: {
    type: "object",
    properties: { jobId: { type: "string", minLength: 1, description: "The id start-ephemeral-agent answered" } },
    additionalProperties: false,
  },
  related: [{ target: "ccdd:start-ephemeral-agent", why: "to start a run" }],
};

export async function run(_adapter, args, context) {
  if (!context?.jobs) throw new Error("this runtime gives skills no job store; upgrade agent-tools-runtime");
  if (args.jobId) return context.jobs.require(args.jobId);
  const jobs = await context.jobs.list();
  return { jobs, count: jobs.length };
}
