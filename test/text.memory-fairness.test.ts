import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { hashToken } from "../src/gateway/identities.js";
import { textJson } from "./helpers.js";
import { httpClient, startHttp, type RunningHttp } from "./http-helpers.js";
import { servicesMissing, startRedis, type RunningService } from "./services-kit.js";
import { callV2, connectHttpV2, v2Client } from "./v2-helpers.js";

/**
 * The memory budget of all sandboxes together is one identity's to spend no more: on a team
 * gateway (8 MiB for all, 4 MiB a sandbox), alice's idle workspaces held 6 MiB and bob's 3 MiB write
 * failed, told to "remove files you no longer need" while he held none. Now idle workspaces of
 * the identity holding the most bytes are closed first (as the workspace count cap does), and a
 * write still refused says whose bytes hold the budget. The built HTTP server, real SDK clients of
 * both eras (a 2025 session is no workspace: it is never closed for memory); with workspace
 * records in memory and in a real redis-server (whose client's timers just-bash refused inside a
 * running line until the reclaim ran outside it).
 */

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
type Who = keyof typeof TOKENS;
interface ExecAnswer {
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  workspace?: string;
  error?: { code?: string; message?: string };
}

/** Two MiB (and a newline) in `name`, made in the sandbox. */
const twoMiB = (name: string): string => `s=x; for i in $(seq 1 21); do s="$s$s"; done; echo "$s" > ${name}; unset s`;
/** Three MiB (and a newline) in `name`. */
const threeMiB = (name: string): string => `s=xyz; for i in $(seq 1 20); do s="$s$s"; done; echo "$s" > ${name}; unset s`;

for (const backend of ["memory", "redis"] as const) {
  describe(`the sandboxes' memory budget on a team gateway (state in ${backend}): idle workspaces of the identity holding the most give way`, { skip: backend === "redis" ? servicesMissing(["redis"]) : undefined }, () => {
    let dir: string;
    let server: RunningHttp;
    let redis: (RunningService & { url: string }) | undefined;
    const clients: { close(): Promise<void> }[] = [];

    async function modern(who: Who): Promise<(command: string, workspace?: string) => Promise<ExecAnswer>> {
      const bearer = (url: string | URL, init?: RequestInit): Promise<Response> => {
        const headers = new Headers(init?.headers);
        headers.set("authorization", `Bearer ${TOKENS[who]}`);
        return fetch(url, { ...init, headers });
      };
      const client = await connectHttpV2(v2Client("pin"), server.url, bearer);
      clients.push(client);
      return async (command, workspace) => (await callV2(client, "agent_tools_exec", { command, ...(workspace ? { workspace } : {}) }, { timeout: 120_000 })).payload as ExecAnswer;
    }

    async function legacy(who: Who): Promise<(command: string) => Promise<ExecAnswer>> {
      const { client } = await httpClient(server.url, { authorization: `Bearer ${TOKENS[who]}` });
      clients.push(client);
      return async (command) => textJson<ExecAnswer>(await (client as LegacyClient).callTool({ name: "agent_tools_exec", arguments: { command } }, undefined, { timeout: 120_000 }));
    }

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-memory-fairness-"));
      const config = path.join(dir, "team.json");
      const identities = (Object.keys(TOKENS) as Who[]).map((name) => ({ name, tokenSha256: hashToken(TOKENS[name]), plugins: ["*"], write: true }));
      await writeFile(config, JSON.stringify({ team: { identities } }));
      if (backend === "redis") redis = await startRedis();
      server = await startHttp({ ...(redis ? { AGENT_TOOLS_REDIS_URL: redis.url } : {}), AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB: "8", AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB: "4", AGENT_TOOLS_EXEC_TIMEOUT_MS: "60000" }, ["--config", config]);
    });
    after(async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await server?.stop();
      await redis?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it("alice's own flood closes her oldest idle workspaces; bob's 3 MiB write then closes more of hers, and a closed handle says why", async () => {
      const alice = await modern("alice");
      const handles: string[] = [];
      for (let i = 0; i < 5; i++) {
        const made = await alice(`${twoMiB("big.txt")}; wc -c < big.txt`);
        assert.equal(made.exitCode, 0, `alice's workspace ${i}: ${made.stderr}`);
        handles.push(made.workspace ?? "");
      }
      // Before: the 4th and 5th failed with the budget spent by her own idle workspaces (6 of 8 MiB).
      const bob = await modern("bob");
      const wrote = await bob(`${threeMiB("data.txt")}; wc -c < data.txt`);
      assert.equal(wrote.exitCode, 0, wrote.stderr);
      assert.equal(wrote.stdout?.trim(), String(3 * 1024 * 1024 + 1));
      const first = await alice("cat big.txt | wc -c", handles[0]);
      assert.equal(first.error?.code, "WORKSPACE_EXPIRED");
      assert.match(first.error?.message ?? "", /was closed to free memory \(the files of all sandboxes together filled their budget, AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB, and it was the least recently used idle one of the caller whose sandboxes held the most\); its files are gone/);
      const last = await alice("wc -c < big.txt", handles[4]);
      assert.equal(last.exitCode, 0, last.stderr);
      assert.equal(last.stdout?.trim(), String(2 * 1024 * 1024 + 1), "her most recent workspace is kept");
    });

    it("a write still refused says whose bytes hold the budget: others' sessions in use (none to remove), or the caller's own", async () => {
      // 2025 sessions are no workspaces: never closed for memory, so they hold the budget until they end.
      const aliceOne = await legacy("alice");
      const aliceTwo = await legacy("alice");
      // Whatever the first test left in workspaces is closed as these sessions need it.
      const one = await aliceOne(`${threeMiB("a.txt")}; echo ok`);
      const two = await aliceTwo(`${threeMiB("b.txt")}; echo ok`);
      assert.equal(one.stdout, "ok\n", one.stderr);
      assert.equal(two.stdout, "ok\n", two.stderr);
      const bob = await modern("bob");
      const refused = await bob(`${twoMiB("mine.txt")}; echo "exit $?"`);
      assert.match(refused.stderr ?? "", /mine\.txt: ENOSPC: the memory budget of all sandboxes together is spent \([\d.]+ MiB of 8 MiB in use: 0 MiB by your sessions, [\d.]+ MiB by other open sessions; 2 MiB more asked; AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB\): none of it is yours to remove: write smaller results/);
      assert.doesNotMatch(refused.stderr ?? "", /remove files you no longer need/);
      // A few bytes of his own (the probe's note.txt) would not make room either: he is not told to rm.
      const noted = await bob(`echo hello > note.txt; ${twoMiB("mine.txt")}; echo "exit $?"`, refused.workspace);
      assert.match(noted.stderr ?? "", /0 MiB by your sessions, [\d.]+ MiB by other open sessions; 2 MiB more asked; AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB\): removing what your sessions hold would not make room, the rest is other sessions': write smaller results/);
      const aliceThree = await legacy("alice");
      const own = await aliceThree(`${twoMiB("c.txt")}; echo "exit $?"`);
      assert.match(own.stderr ?? "", /ENOSPC: the memory budget of all sandboxes together is spent \([\d.]+ MiB of 8 MiB in use: 6 MiB by your sessions, [\d.]+ MiB by other open sessions; 2 MiB more asked; AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB\): remove files you no longer need with rm \(here, or in your other sessions\)/);
      // Freed by its owner, the budget serves bob.
      assert.equal((await aliceOne("rm a.txt; echo freed")).stdout, "freed\n");
      const now = await bob(`${twoMiB("mine.txt")}; wc -c < mine.txt`);
      assert.equal(now.exitCode, 0, now.stderr);
    });
  });
}
