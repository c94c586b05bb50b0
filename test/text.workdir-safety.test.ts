import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { baseEnv, callJson, CLI_BIN, MCP_BIN } from "./helpers.js";

// The /workdir mount (AGENT_TOOLS_EXEC_MOUNT_CWD=1) where a client starts the server: from `/` or
// the home folder it is refused (it showed /proc/<pid>/environ, /etc/shadow and the home's
// credentials); in a project folder, a named pipe or a device in it is never opened.

const SECRET = "sk-live-workdirSafety1234567890";

interface ExecAnswer {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function exec(client: Client, command: string): Promise<ExecAnswer> {
  const { payload } = await callJson(client, "agent_tools_exec", { command });
  return payload as unknown as ExecAnswer;
}

/** The session's runtime folder (XDG_RUNTIME_DIR) every server here is told of: its agents' sockets (ssh-agent, gpg-agent, D-Bus) are never mounted. */
const RUNTIME_DIR = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-runtime-dir-")));

// Where a client may start the server, and why the mount is refused there. The shared temp
// folders themselves hold other users' and programs' files (sockets, temp files with tokens); a
// folder made under one, as every other test here mounts, is a project's.
const REFUSED_PLACES = [
  { where: "/", label: "/", why: /the working directory \/ is the root of the disk/ },
  { where: "home", label: "the home folder", why: /the working directory \S+ is the home folder/ },
  { where: realpathSync(tmpdir()), label: "the temp folder itself", why: /the working directory \S+ is a shared temp folder \(\/tmp, \/var\/tmp, \/dev\/shm, TMPDIR\), where other users and programs keep their files \(sockets, temp files holding tokens\)/ },
  ...(existsSync("/var/tmp") ? [{ where: "/var/tmp", label: "/var/tmp", why: /the working directory \/var\/tmp is a shared temp folder/ }] : []),
  { where: RUNTIME_DIR, label: "the user's runtime folder (XDG_RUNTIME_DIR)", why: /the working directory \S+ is a user's runtime folder \(\/run\/user\/<uid>, XDG_RUNTIME_DIR\), where the session's agents keep their sockets \(ssh-agent, gpg-agent, D-Bus\)/ },
];

for (const { where, label, why } of REFUSED_PLACES) {
  describe(`the /workdir mount asked for in a server started from ${label}`, () => {
    let client: Client;
    before(async () => {
      const home = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-mount-home-")));
      writeFileSync(path.join(home, "notes.txt"), "home notes\n");
      const env = baseEnv({ HOME: home, XDG_STATE_HOME: home, AGENT_TOOLS_PLUGINS_DIR: path.join(home, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1", SECRET_API_TOKEN: SECRET, XDG_RUNTIME_DIR: RUNTIME_DIR });
      const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd: where === "home" ? home : where, stderr: "pipe" });
      client = new Client({ name: "mount-safety-test", version: "0.0.0" });
      await client.connect(transport);
    });
    after(async () => client.close());

    it("is off: status says why and how to set the folder, and nothing of the disk is in the sandbox", async () => {
      const { payload } = await callJson(client, "agent_tools_exec", { command: "status" });
      const result = payload.result as { problems?: string[]; sandbox: { workdir: string } };
      for (const text of [result.sandbox.workdir, (result.problems ?? []).join("\n")]) {
        for (const part of [/^\/workdir is off: AGENT_TOOLS_EXEC_MOUNT_CWD is on, but /m, why, /never mounts the whole disk, the home folder, a shared temp folder or a system folder/, /start the server in the project folder/]) assert.match(text, part);
      }
      const probe = await exec(client, "ls /workdir; cat /workdir/proc/self/environ /workdir/etc/passwd /workdir/notes.txt; echo end");
      assert.equal(probe.stdout, "end\n");
      assert.match(probe.stderr, /ls: \/workdir: No such file or directory/);
      assert.doesNotMatch(JSON.stringify(probe), new RegExp(`${SECRET}|root:x?:0:0|home notes`));
    });
  });
}

/** `lines` sent to `agent-tools serve` in `cwd`, one exec each; stdin is closed after them. Resolves with the answers once the process exits. */
function serveLines(cwd: string, env: Record<string, string>, lines: string[], boundMs: number): Promise<{ code: number | null; answers: ExecAnswer[]; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI_BIN, "serve"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`agent-tools serve did not exit within ${boundMs} ms after its stdin closed; it printed: ${stdout}`));
    }, boundMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const answers = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as ExecAnswer);
      resolve({ code, answers, ms: Date.now() - started });
    });
    child.stdin.end(lines.map((command) => `${JSON.stringify({ action: "exec", command })}\n`).join(""));
  });
}

describe("a named pipe and a device in the mounted project folder", () => {
  let project: string;
  let device = false;
  before(() => {
    project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-mount-fifo-")));
    mkdirSync(path.join(project, "src"));
    writeFileSync(path.join(project, "readme.txt"), "project readme\n");
    execFileSync("mkfifo", [path.join(project, "src", "pipe")]);
    try {
      // /dev/zero's numbers: only where this process may make devices (root in a container).
      execFileSync("mknod", [path.join(project, "zero"), "c", "1", "5"], { stdio: "ignore" });
      device = true;
    } catch {
      device = false;
    }
  });

  it("are listed, never opened: each read answers at once with a line naming the file, and the process stays usable and exits", async () => {
    const env = baseEnv({ HOME: path.join(project, "..", "no-home"), AGENT_TOOLS_PLUGINS_DIR: path.join(project, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1", AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
    // Five reads: a blocked open held one of Node's four threadpool threads each, after which every file operation waited.
    const reads = Array.from({ length: 5 }, () => "cat /workdir/src/pipe; echo rc=$?");
    const lines = [...reads, "ls /workdir/src", ...(device ? ["head -c 10 /workdir/zero | od -c; echo rc=$?"] : []), "cat /workdir/readme.txt"];
    const { code, answers, ms } = await serveLines(project, env, lines, 60_000);
    assert.equal(code, 0);
    assert.equal(answers.length, lines.length, JSON.stringify(answers));
    assert.ok(ms < 30_000, `the session answered and exited in ${ms} ms (a blocked read waited for its 20 s deadline)`);
    for (const answer of answers.slice(0, 5)) {
      assert.equal(answer.stdout, "rc=1\n");
      assert.match(answer.stderr, /^cat: \/workdir\/src\/pipe: No such file or directory\n/);
      assert.match(answer.stderr, /agent-tools: \/workdir\/src\/pipe was not read: it is a named pipe \(fifo\), and the sandbox reads only regular files and folders in \/workdir\n/);
    }
    assert.equal(answers[5]?.stdout, "pipe\n", "the pipe is listed");
    if (device) {
      const zero = answers[6];
      assert.match(zero?.stdout ?? "", /rc=0/);
      assert.match(zero?.stderr ?? "", /agent-tools: \/workdir\/zero was not read: it is a character device, and the sandbox reads only regular files and folders in \/workdir/);
    }
    assert.equal(answers.at(-1)?.stdout, "project readme\n");
  });
});

describe("other tools' credential files in the mounted folder (a home-like folder)", () => {
  it("are not listed and cannot be read: Claude Code's login, gh's hosts.yml, shell histories, gcloud, cargo", async () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-mount-creds-")));
    const files: Record<string, string> = {
      ".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"${SECRET}-1"}}`,
      ".config/gh/hosts.yml": `github.com:\n    oauth_token: ${SECRET}-2\n`,
      ".bash_history": `curl -H 'Authorization: Bearer ${SECRET}-3'\n`,
      ".zsh_history": `export TOKEN=${SECRET}-4\n`,
      ".python_history": `key = "${SECRET}-5"\n`,
      ".node_repl_history": `process.env.T="${SECRET}-6"\n`,
      ".psql_history": `\\password ${SECRET}-7\n`,
      ".config/gcloud/credentials.db": `${SECRET}-8`,
      ".cargo/credentials.toml": `[registry]\ntoken = "${SECRET}-9"\n`,
      ".vault-token": `${SECRET}-10`,
      "notes/hosts.yml": "web:\n  - a.example.com\n",
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), text);
    }
    const env = baseEnv({ HOME: path.join(folder, "..", "no-home"), AGENT_TOOLS_PLUGINS_DIR: path.join(folder, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1" });
    const reads = Object.keys(files).map((file) => `/workdir/${file}`).join(" ");
    const { code, answers } = await serveLines(folder, env, [`find /workdir -type f | sort`, `cat ${reads}; grep -r oauth_token /workdir; cp -r /workdir/.config /tmp/c && find /tmp/c -type f`], 60_000);
    assert.equal(code, 0);
    const [listing, read] = answers;
    assert.ok(listing && read, JSON.stringify(answers));
    // A hosts.yml outside gh's folder is a project's own file (an inventory), and is shown.
    assert.equal(listing.stdout, "/workdir/notes/hosts.yml\n", listing.stdout);
    assert.match(read.stdout, /^web:\n {2}- a\.example\.com\n$/);
    assert.match(read.stderr, /cat: \/workdir\/\.claude\/\.credentials\.json: No such file or directory/);
    assert.doesNotMatch(JSON.stringify(answers), new RegExp(SECRET));
  });
});

describe("large files in the mounted folder", () => {
  it("a file up to 32 MiB is read; a larger one stops the line with advice of its own, and the session goes on", async () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-mount-big-")));
    // Sparse: sizes on disk as a command checks them, without writing the bytes.
    execFileSync("truncate", ["-s", "20M", path.join(folder, "mid.bin")]);
    execFileSync("truncate", ["-s", "40M", path.join(folder, "big.bin")]);
    const env = baseEnv({ HOME: path.join(folder, "..", "no-home"), AGENT_TOOLS_PLUGINS_DIR: path.join(folder, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1" });
    const { code, answers } = await serveLines(folder, env, ["head -c 4 /workdir/mid.bin | wc -c", "head -c 10 /workdir/big.bin | wc -c", "echo alive"], 60_000);
    assert.equal(code, 0);
    const [mid, big, alive] = answers;
    assert.equal(mid?.stdout.trim(), "4", "a 20 MiB file is read (the overlay's own 10 MiB cap made it 'No such file or directory')");
    assert.equal(big?.exitCode, 126);
    assert.match(big?.stderr ?? "", /aggregate input size limit exceeded \(33554432 bytes\)/);
    assert.match(big?.stderr ?? "", /agent-tools: a sandbox limit stopped the command line: a command's input was larger than the sandbox reads \(32 MiB; a file counts by its size on disk, so a larger file cannot be read in the sandbox at all, not even its first bytes\): read a part of it with the filesystem plugin's tools/);
    assert.doesNotMatch(big?.stderr ?? "", /make loops finite/);
    assert.equal(alive?.stdout, "alive\n");
  });
});

/**
 * How to start the server so that `chmod 000` stops its reads: as this process's user, or, as
 * root (CI), through setpriv without the two capabilities that read past permissions. The reason
 * it cannot be, when neither works.
 */
function deniedReadsServer(unreadable: string): { command: string; args: string[] } | { skip: string } {
  const server = { command: process.execPath, args: [MCP_BIN] };
  if (process.platform === "win32") return { skip: "POSIX permissions" };
  if (process.getuid?.() !== 0) {
    try {
      readFileSync(unreadable);
      return { skip: "this user reads a file of mode 000 (it has CAP_DAC_OVERRIDE)" };
    } catch {
      return server;
    }
  }
  const drop = ["--bounding-set", "-dac_override,-dac_read_search"];
  try {
    execFileSync("setpriv", [...drop, process.execPath, "-e", `require("fs").readFileSync(${JSON.stringify(unreadable)})`], { stdio: "ignore" });
    return { skip: "running as root, and setpriv did not take away the capability to read a file of mode 000" };
  } catch (error) {
    // ENOENT: no setpriv here; an exit code: it ran, and the read was refused, as wanted.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { skip: "running as root, and setpriv (util-linux), which runs the server without the capability to read past permissions, is not installed" };
    return { command: "setpriv", args: [...drop, server.command, ...server.args] };
  }
}

describe("files and folders in the mounted project that the host does not let the server read", () => {
  const project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-mount-denied-")));
  const files: Record<string, string> = {
    "readme.txt": "project readme\n",
    "notes/plan.txt": `${SECRET}-notes\n`,
    "tree/a.txt": "alpha\n",
    "tree/locked/inner.txt": `${SECRET}-inner\n`,
    "keys/.env": `TOKEN=${SECRET}-env\n`,
    "keys/b.txt": "bee\n",
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`many/f${String(i + 1).padStart(2, "0")}.txt`, `${i}\n`])),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
  for (const file of ["notes/plan.txt", "keys/.env", ...Object.keys(files).filter((f) => f.startsWith("many/"))]) chmodSync(path.join(project, file), 0o000);
  chmodSync(path.join(project, "tree", "locked"), 0o000);
  const server = deniedReadsServer(path.join(project, "notes", "plan.txt"));
  let client: Client;
  before(async () => {
    if ("skip" in server) return;
    const env = baseEnv({ HOME: path.join(project, "..", "no-home"), AGENT_TOOLS_PLUGINS_DIR: path.join(project, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1" });
    client = new Client({ name: "mount-denied-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ ...server, env, cwd: project, stderr: "pipe" }));
  });
  after(async () => client?.close());
  const skip = "skip" in server ? server.skip : false;

  it("a file: the read fails as the command says, and stderr names the file and why", { skip }, async () => {
    const answer = await exec(client, "cat /workdir/notes/plan.txt; echo rc=$?");
    assert.equal(answer.stdout, "rc=1\n");
    assert.match(answer.stderr, /^cat: \/workdir\/notes\/plan\.txt: No such file or directory\n/);
    assert.match(answer.stderr, /\nagent-tools: \/workdir\/notes\/plan\.txt was not read: the host does not let the server's user read this file \(EACCES\), so the command's output leaves it out; give that user access on the host if the command needs it\n$/);
  });

  it("a folder a search would skip without a word: stderr names it, so the output is not taken for the whole tree", { skip }, async () => {
    const answer = await exec(client, "rg -l . /workdir/tree; echo rc=$?");
    assert.equal(answer.stdout, "/workdir/tree/a.txt\nrc=0\n");
    assert.match(answer.stderr, /agent-tools: \/workdir\/tree\/locked was not read: the host does not let the server's user (list|search) this folder \(EACCES[^)]*\), so the command's output leaves everything in it out/);
    assert.doesNotMatch(JSON.stringify(answer), new RegExp(SECRET));
  });

  it("a copy out of the mount that meets one says which", { skip }, async () => {
    const answer = await exec(client, "cp -r /workdir/tree /tmp/tree-copy; echo rc=$?");
    assert.match(answer.stdout, /rc=1\n$/);
    assert.match(answer.stderr, /agent-tools: \/workdir\/tree\/locked was not read: the host does not let the server's user (list|search) this folder/);
  });

  it("many: ten are named, the rest counted, and the next line starts with none", { skip }, async () => {
    const answer = await exec(client, "cat /workdir/many/*; echo rc=$?");
    const named = answer.stderr.split("\n").filter((line) => /^agent-tools: \/workdir\/many\/f\d\d\.txt was not read: /.test(line));
    assert.deepEqual(named.map((line) => /f\d\d/.exec(line)?.[0]), ["f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10"]);
    assert.match(answer.stderr, /\nagent-tools: 2 more paths in \/workdir were not read \(12 in all; the first 10 are named above, each with why\)\n$/);
    const next = await exec(client, "cat /workdir/readme.txt");
    assert.deepEqual({ stdout: next.stdout, stderr: next.stderr }, { stdout: "project readme\n", stderr: "" });
  });

  it("a hidden file among them is never named: a copy of its folder inside the mount is refused without its name", { skip }, async () => {
    const answer = await exec(client, "cp -r /workdir/keys /workdir/keys2; echo rc=$?; rg -l . /workdir/keys");
    assert.equal(answer.stdout, "rc=1\n/workdir/keys/b.txt\n");
    assert.match(answer.stderr, /^cp: cannot copy '\/workdir\/keys': refused: this folder holds a file hidden from the sandbox that the host does not let the server's user read \(EACCES\), so it cannot be carried along; copy \(move\) the other files one by one instead\n$/);
    assert.doesNotMatch(JSON.stringify(answer), /\.env|TOKEN/);
  });
});
