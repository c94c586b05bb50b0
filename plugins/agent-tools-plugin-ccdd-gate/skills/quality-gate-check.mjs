import { skillContext } from "agent-tools-runtime/plugin";
import { CHECKS } from "../lib/checks.mjs";

// One call runs every check on the same code; a check that cannot run is reported as an error
// next to the others instead of stopping the gate.
export const meta = {
  description:
    "Run the ccdd-gate checks (complexity, signatures, purity, asserts, bare except, mutable defaults, None comparisons, guardrails, dependencies) on a Python code string in one call and report pass, fail or error per check.",
  args: {
    type: "object",
    properties: {
      code: { type: "string", minLength: 1, description: "Python source to check" },
      checks: { type: "array", items: { type: "string", enum: CHECKS }, description: "A subset of the checks to run (default: all nine)" },
      options: {
        type: "object",
        description: "Extra arguments per check, e.g. {\"measure_complexity\": {\"max_complexity\": 5}, \"scan_dependencies\": {\"allowed\": [\"requests\"]}}",
        additionalProperties: { type: "object" },
      },
    },
    required: ["code"],
    additionalProperties: false,
  },
  related: [{ target: "ccdd:start-ephemeral-agent", why: "to have an agent fix what the gate found" }],
};

export async function run(adapter, args, context) {
  const kit = skillContext(adapter, context);
  const wanted = args.checks?.length ? args.checks : CHECKS;
  const options = args.options ?? {};
  const checks = [];
  for (const check of wanted) {
    try {
      const report = await kit.call(check, { ...(options[check] ?? {}), code: args.code });
      const findings = Array.isArray(report?.findings) ? report.findings : [];
      // Only an explicit verdict counts: a report without `passed` is not a pass.
      if (report?.passed === true || report?.passed === false) checks.push({ check, status: report.passed ? "pass" : "fail", findings });
      else checks.push({ check, status: "error", error: `the check answered no verdict (no 'passed' field): ${JSON.stringify(report)?.slice(0, 200)}` });
    } catch (error) {
      checks.push({ check, status: "error", error: error instanceof Error ? error.message : String(error) });
    }
  }
  const count = (status) => checks.filter((c) => c.status === status).length;
  const summary = { pass: count("pass"), fail: count("fail"), error: count("error") };
  return { passed: summary.fail === 0 && summary.error === 0, summary, checks };
}
