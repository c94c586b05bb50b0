import path from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { resolveHttpOptions } from "../src/transports/http/options.js";
import { startHttpFacade } from "../src/transports/http/server.js";

/**
 * The HTTP facade in a process of its own, for bench/protocol.ts: it says its URL over the IPC
 * channel and answers "cpu" with the CPU time it has used so far (user + system, µs), so the
 * bench can charge each request the server's own CPU time, which other load on a shared machine
 * does not inflate the way it inflates wall-clock time.
 */

const NOTES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "plugins", "agent-tools-plugin-notes");
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
