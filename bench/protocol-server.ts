import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The HTTP facade in a process of its own, for bench/protocol.ts: it says its URL over the IPC
 * channel and answers "cpu" with the CPU time it has used so far (user + system, µs), so the
 * bench can charge each request the server's own CPU time, which other load on a shared machine
 * does not inflate the way it inflates wall-clock time.
 *
 * Argument: the checkout to serve (default: this one). The bench passes another checkout's root
 * to measure a baseline next to this tree in the same run. The server runs the checkout's bundled
 * build, the package entry `dist/index.js`, whose chunks (the runtime with the MCP SDK and zod
 * inlined, scripts/bundle.ts) are the ones the `agent-tools-mcp-http` bin runs. Not its sources
 * through tsx, whose transform adds a name-keeping wrapper to every function it creates and so
 * charges each request for the shape of the code rather than its work; and not tsc's per-file
 * output either (what this loaded until session 4), which imports the SDK from node_modules as
 * published, so it measured an SDK the bin does not run.
 */

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const entry = path.join(root, "dist", "index.js");
if (!existsSync(entry)) {
  console.error(`${root} has no build: run \`npm run build\` there first`);
  process.exit(2);
}
const { createRuntime, resolveHttpOptions, startHttpFacade } = (await import(pathToFileURL(entry).href)) as typeof import("../src/index.js");
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

const NOTES = path.join(root, "test", "fixtures", "plugins", "agent-tools-plugin-notes");
const runtime = await createRuntime({ pluginDirs: [NOTES], log: silentLogger, env: {} });
const http = await startHttpFacade(runtime, { ...resolveHttpOptions({}), port: 0 }, silentLogger);
process.on("message", (message) => {
  if (message === "cpu") {
    const used = process.cpuUsage();
    process.send?.({ cpu: used.user + used.system });
  } else if (message === "stop") {
    void http.close().then(() => runtime.close()).finally(() => process.exit(0));
  }
});
process.send?.({ url: http.url });
