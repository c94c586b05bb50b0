import { createInterface } from "node:readline";
import type { Logger } from "../adapters/types.js";
import type { AgentToolsConfig } from "../config/config.js";
import { oneOffCommandLogger } from "../log.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import { sharedStateOrProblem, type SharedState } from "../state/index.js";
import { closeSession, type Session } from "../runtime/session.js";
import { writeStdout } from "../stdout-guard.js";
import type { ExecAnswer } from "../text/answer.js";
import { EXIT } from "../text/exit-codes.js";
import { createTextLayer, textLayerOptionsFromEnv, type TextLayer } from "../text/text-layer.js";

/**
 * The text layer from the command line. `status`, `list`, `load MODULE` and `exec COMMAND…`
 * each answer one JSON object in a one-off session (so `load` there only checks the module);
 * `serve` keeps one session for the life of the process and answers one JSON request per
 * stdin line with one JSON line on stdout. Every answer leaves through the runtime's one redactor,
 * as agent_tools_exec's does (facade/server.ts): a command line's output may quote a credential
 * (`echo $TOKEN`, a file holding one), and the CLI's stdout is read by the same agents.
 */

export type TextAction = "status" | "list" | "load" | "exec";

async function open(config: AgentToolsConfig | undefined, log?: Logger, state?: SharedState): Promise<{ runtime: Runtime; layer: TextLayer; session: Session }> {
  const runtime = await createRuntime({ ...(config ? { config } : {}), ...(log ? { log } : {}), ...(state ? { state } : {}) });
  const layer = createTextLayer(runtime, textLayerOptionsFromEnv());
  return { runtime, layer, session: runtime.createSession("cli") };
}

/**
 * The answer of an action that did not run (a config that does not load, a state setting a server
 * would refuse to start with): still one JSON object, so a script reading stdout reads the problems.
 * status says NOT READY; the others name the line not run.
 */
export function notRunAnswer(action: TextAction, words: readonly string[], problems: string[]): Record<string, unknown> {
  return action === "status" ? { ok: false, command: action, exitCode: 1, result: { status: "NOT READY", problems } } : { ok: false, command: lineFor(action, words), exitCode: 1, problems };
}

/** The line the text layer runs for an action and its words (also the `command` of its answer). */
export function lineFor(action: TextAction, words: readonly string[]): string {
  if (action === "status" || action === "list") return action;
  if (action === "load") return `load ${words.join(" ")}`;
  return words.join(" ");
}

/** One action, one JSON answer on stdout; the exit status is the answer's exit code. */
export async function runTextAction(action: TextAction, words: readonly string[], config: AgentToolsConfig | undefined): Promise<number> {
  const log = oneOffCommandLogger();
  const made = await sharedStateOrProblem({ env: process.env, log, ...(config?.team ? { settings: config.team } : {}) });
  if (made.problem) {
    // The message names the setting; a Redis URL in it is masked already (redis-url.ts).
    await made.state.close();
    writeStdout(`${JSON.stringify(notRunAnswer(action, words, [made.problem]), null, 2)}\n`);
    process.stderr.write(`agent-tools ${action}: ${made.problem}\n`);
    return 1;
  }
  const { runtime, layer, session } = await open(config, log, made.state);
  try {
    const answer = await layer.exec(session, lineFor(action, words));
    writeStdout(`${JSON.stringify(runtime.redactValue(answer), null, 2)}\n`);
    return Math.min(answer.exitCode, 255);
  } finally {
    await closeSession(session);
    await runtime.close();
    await made.state.close();
  }
}

interface ServeRequest {
  id?: unknown;
  action?: unknown;
  command?: unknown;
  module?: unknown;
}

function badRequest(message: string, id?: unknown): Record<string, unknown> {
  return {
    ...(id !== undefined ? { id } : {}),
    ok: false,
    exitCode: EXIT.USAGE,
    error: {
      code: "BAD_REQUEST",
      message,
      hint: 'Send one JSON object per line: {"action":"status"}, {"action":"list"}, {"action":"load","module":"commands/runtime-demo"} or {"action":"exec","command":"echo hi"}.',
    },
  };
}

/** The answer to one stdin line; never throws. */
async function answerLine(layer: TextLayer, session: Session, line: string): Promise<Record<string, unknown>> {
  let request: ServeRequest;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return badRequest("the line is JSON but not an object");
    request = parsed as ServeRequest;
  } catch (error) {
    return badRequest(`the line is not JSON (${(error as Error).message})`);
  }
  const id = request.id;
  const withId = (answer: ExecAnswer): Record<string, unknown> => ({ ...(id !== undefined ? { id } : {}), ...answer });
  switch (request.action) {
    case "status":
    case "list":
      return withId(await layer.exec(session, request.action));
    case "load": {
      const module = request.module ?? request.command;
      if (typeof module !== "string" || !module.trim()) return badRequest("'load' needs 'module', e.g. \"commands/runtime-demo\"", id);
      return withId(await layer.exec(session, `load ${module}`));
    }
    case "exec":
      if (typeof request.command !== "string") return badRequest("'exec' needs 'command', a string", id);
      return withId(await layer.exec(session, request.command));
    default:
      return badRequest(`'action' must be "status", "list", "load" or "exec"${request.action === undefined ? "" : `, not ${JSON.stringify(request.action)}`}`, id);
  }
}

/** JSON lines on stdin → one JSON answer per line on stdout, in order, one session throughout. */
export async function serveText(config: AgentToolsConfig | undefined): Promise<number> {
  const { runtime, layer, session } = await open(config);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let chain: Promise<void> = Promise.resolve();
  for await (const line of lines) {
    if (!line.trim()) continue;
    chain = chain.then(async () => {
      let answer: Record<string, unknown>;
      try {
        answer = await answerLine(layer, session, line);
      } catch (error) {
        answer = badRequest(`internal error: ${(error as Error).message}`);
      }
      writeStdout(`${JSON.stringify(runtime.redactValue(answer))}\n`);
    });
    await chain;
  }
  await chain;
  await closeSession(session);
  await runtime.close();
  return 0;
}
