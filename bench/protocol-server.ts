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
 * to measure a baseline next to this tree in the same run. The server runs the checkout's build
 * (`dist/`, what `agent-tools-mcp-http` runs), not its sources through tsx, whose transform adds a
 * name-keeping wrapper to every function it creates and so charges each request for the shape of
 * the code rather than its work.
 */

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
if (!existsSync(path.join(root, "dist", "transports", "http", "server.js"))) {
  console.error(`${root} has no build: run \`npm run build\` there first`);
  process.exit(2);
}
const load = (file: string): Promise<Record<string, unknown>> => import(pathToFileURL(path.join(root, "dist", file)).href) as Promise<Record<string, unknown>>;
const { silentLogger } = (await load("log.js")) as typeof import("../src/log.js");
const { createRuntime } = (await load("runtime/runtime.js")) as typeof import("../src/runtime/runtime.js");
const { resolveHttpOptions } = (await load("transports/http/options.js")) as typeof import("../src/transports/http/options.js");
const { startHttpFacade } = (await load("transports/http/server.js")) as typeof import("../src/transports/http/server.js");

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
