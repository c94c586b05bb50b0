// Local programs as one command, configured on the host:
//   AGENT_CLI_ALLOWLIST (required): the programs that may run, e.g. "git,jq".
// Programs run on the host without a shell, in a minimal environment (no host secrets), in
// the server's working directory; sandbox paths mean nothing to them. Every run needs
// --confirm before the program name: a local program can change anything the server can. Runs
// go through the runtime's one call path (an in-memory plugin 'local-cli' of the session).

export const name = "local-cli";
export const description = "Allowlisted local programs (AGENT_CLI_ALLOWLIST): cli-run --confirm PROGRAM ARGS…";
export const variables = [
  { name: "AGENT_CLI_ALLOWLIST", description: "the programs cli-run may start, comma or space separated", required: true },
];
export const commands = ["cli-run"];

const USAGE = "cli-run --confirm PROGRAM [ARGS…]   (stdin is passed to the program)";

/** The runner as an in-memory plugin with one tool, `run` (a write: it can change anything the server can). */
function runnerAdapter(runner) {
  return {
    async listTools() {
      const schema = { type: "object", properties: { program: { type: "string" }, args: { type: "array", items: { type: "string" } }, stdin: { type: "string" } }, required: ["program"] };
      return { tools: [{ name: "run", description: "run an allowlisted program", inputSchema: schema }] };
    },
    async call(_name, args, ctx) {
      return runner.run(args.program, args.args ?? [], { signal: ctx?.signal, parse: "text", ...(args.stdin ? { input: args.stdin } : {}) });
    },
  };
}

export function setup(host) {
  const plugin = host.plugin({
    prefix: "local-cli",
    name: "the allowlisted programs (AGENT_CLI_ALLOWLIST)",
    description: "Local programs",
    client: () => runnerAdapter(host.lib.cliRunnerFromEnv(host.env, { log: host.log })),
  });
  return {
    commands: [
      {
        name: "cli-run",
        summary: "run an allowlisted program with ARGS; its stdout, stderr and exit code pass through",
        usage: USAGE,
        async run(args, io) {
          // Only a leading --confirm is ours: the program's own arguments are passed untouched.
          let i = 0;
          let confirm = false;
          while (args[i] === "--confirm") {
            confirm = true;
            i += 1;
          }
          if (args[i]?.startsWith("--confirm=")) return host.output.usage("cli-run", `--confirm takes no value (got '${args[i].slice(0, 40)}'): write --confirm before PROGRAM`, USAGE);
          if (args[i] === "--help" || args[i] === "-h") return host.output.text(`usage: ${USAGE}\n`);
          const [program, ...argv] = args.slice(i);
          if (!program) return host.output.usage("cli-run", "name the program to run", USAGE);
          const outcome = await plugin.call("run", { program, args: argv, ...(io.stdin ? { stdin: io.stdin } : {}) }, { confirm, signal: io.signal });
          if (outcome.isError) {
            const failed = host.output.outcome("cli-run", outcome);
            // A --confirm after PROGRAM is one of the program's arguments, not ours: say where it goes.
            const misplaced = !confirm && outcome.payload.error?.code === "CONFIRM_REQUIRED" && argv.includes("--confirm") ? `cli-run: the --confirm after ${program} was passed to it as an argument; put --confirm before PROGRAM: cli-run --confirm ${program} …\n` : "";
            return { stdout: "", stderr: `${failed.stderr}${misplaced}`, exitCode: failed.exitCode };
          }
          const result = outcome.payload.result;
          const ended = result.signal ? `cli-run: ${program} was ended by signal ${result.signal} (no exit code)\n` : "";
          const note = `${ended}${result.truncated ? `cli-run: output was cut at ${result.maxOutputBytes} bytes\n` : ""}`;
          // A text line's streams are text: bytes that are not UTF-8 would reach the next command
          // (od, base64, a file) corrupted, so they are not passed on, and the run does not pass
          // for a success whose output came through.
          if (result.stdout?.binary === true) {
            const binary = `cli-run: ${program} wrote ${result.stdout.bytes} bytes to stdout that are not UTF-8 text; they were not passed through (a text line carries text only, and these would arrive corrupted). Ask ${program} for text: its base64 or hex output option, or a file it writes.\n`;
            return { stdout: "", stderr: `${result.stderr}${note}${binary}`, exitCode: result.exitCode === 0 || result.exitCode < 0 ? host.exit.FAILED : result.exitCode };
          }
          const stdout = typeof result.stdout === "string" ? result.stdout : JSON.stringify(result.stdout);
          return { stdout, stderr: `${result.stderr}${note}`, exitCode: result.exitCode < 0 ? host.exit.FAILED : result.exitCode };
        },
      },
    ],
    close: () => plugin.close(),
  };
}
