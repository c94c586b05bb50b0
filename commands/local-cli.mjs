// Local programs as one command, configured on the host:
//   AGENT_CLI_ALLOWLIST (required): the programs that may run, e.g. "git,jq".
// Programs run on the host without a shell, in a minimal environment (no host secrets), in
// the server's working directory; sandbox paths mean nothing to them. Every run needs
// --confirm before the program name: a local program can change anything the server can.

export const name = "local-cli";
export const description = "Allowlisted local programs (AGENT_CLI_ALLOWLIST): cli-run --confirm PROGRAM ARGS…";
export const variables = [
  { name: "AGENT_CLI_ALLOWLIST", description: "the programs cli-run may start, comma or space separated", required: true },
];
export const commands = ["cli-run"];

const USAGE = "cli-run --confirm PROGRAM [ARGS…]   (stdin is passed to the program)";

export function setup(host) {
  let made;
  const runner = () => (made ??= host.lib.cliRunnerFromEnv(host.env, { log: host.log }));
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
          const [program, ...argv] = args.slice(i);
          if (!program) return host.output.usage("cli-run", "name the program to run", USAGE);
          if (!confirm) return host.output.confirmRequired("cli-run", `running '${program}'`);
          try {
            const result = await runner().run(program, argv, { signal: io.signal, parse: "text", ...(io.stdin ? { input: io.stdin } : {}) });
            const note = result.truncated ? `cli-run: output was cut at ${result.maxOutputBytes} bytes\n` : "";
            const stdout = typeof result.stdout === "string" ? result.stdout : JSON.stringify(result.stdout);
            return { stdout, stderr: `${result.stderr}${note}`, exitCode: result.exitCode < 0 ? host.exit.FAILED : result.exitCode };
          } catch (error) {
            const failed = host.output.error("cli-run", error);
            return { stdout: "", stderr: failed.stderr, exitCode: failed.exitCode };
          }
        },
      },
    ],
  };
}
