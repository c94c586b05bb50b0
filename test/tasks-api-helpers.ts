import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ROOT } from "./helpers.js";

/** The reference tasks API (examples/tasks-api/server.mjs) as its own process on a free port. */

const SERVER = path.join(ROOT, "examples", "tasks-api", "server.mjs");

export interface TasksApi {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

export function startTasksApi(dbFile: string, key: string): Promise<TasksApi> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH ?? "", TASKS_API_KEY: key, TASKS_DB_FILE: dbFile, TASKS_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`tasks-api exited with ${code}: ${stderr}`)));
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve({ url: match[1]!, child, stderr: () => stderr, stop });
    });
  });
}

