import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rssOf } from "./helpers.js";
import { httpForSuite, raw, rawInitialize, sessionHeaders } from "./http-helpers.js";

// 64 HTTP sessions (the default cap) each try to fill their sandbox's files to its 128 MiB cap.
// All sandboxes together may hold 512 MiB (the default budget): past it, writes fail with an
// ENOSPC error that names the shared budget and what to do, the server's peak RSS stays under
// its idle RSS + the budget + 320 MiB, and ending the sessions gives the budget back.

const MIB = 1024 * 1024;
const SESSIONS = 64;
const BUDGET_MIB = 512;

let nextId = 100;
async function exec(url: string, session: string, command: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command } } });
  const res = await raw(url, { headers: sessionHeaders(session), body });
  assert.equal(res.status, 200, res.body.slice(0, 500));
  // The facade's answer is its one text block of JSON.
  const result = res.json().result as { content?: Array<{ type: string; text?: string }> };
  const text = result.content?.[0]?.text;
  assert.ok(text, res.body.slice(0, 500));
  return JSON.parse(text) as { exitCode: number; stdout: string; stderr: string };
}

// One MiB made by doubling, then copies of it until the first refusal (at most 128 MiB).
const FILL = [
  "x=0123456789abcdef; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do x=$x$x; done; echo -n \"$x\" > /tmp/seed",
  'n=1; while [ $n -le 128 ]; do err=$(cp /tmp/seed /tmp/copy$n 2>&1) || break; n=$((n+1)); done; echo $n; echo "$err"',
].join("\n");

describe("the memory budget of all sandboxes together", { timeout: 600_000 }, () => {
  const pid = (): number => http.child.pid as number;
  // The sessions wait their turn to fill after initialize: keep them from expiring as unused on a slow machine.
  // FILL's loop of 128 copies keeps the thread for seconds on a loaded machine: the hold limit
  // (text.thread-hold.test.ts) would stop it before the budget is reached, and it is the budget measured here.
  const http = httpForSuite({ AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS: "600000", AGENT_TOOLS_EXEC_HOLD_MS: "off" });

  it("stops 64 sessions filling their sandboxes at the shared budget with a clear error, within a stated RSS bound", async () => {
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await rawInitialize(http.url));
    await exec(http.url, sessions[0] as string, "echo warm");
    const idle = rssOf(pid()).rss;

    const answers: { exitCode: number; stdout: string; stderr: string }[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sessions.length) {
        const session = sessions[next++] as string;
        answers.push(await exec(http.url, session, FILL));
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));

    const files = answers.reduce((sum, a) => sum + Number(a.stdout.split("\n")[0]), 0); // seed + copies, 1 MiB each
    const refused = answers.filter((a) => /memory budget of all sandboxes together is spent/.test(a.stdout + a.stderr));
    assert.ok(refused.length > 0, `some sessions met the shared budget: ${JSON.stringify(answers.slice(-2))}`);
    // Told to remove files only when its own session holds some: one refused at its first write holds none.
    for (const answer of refused) {
      const text = `${answer.stdout}${answer.stderr}`;
      assert.match(text, /ENOSPC: .*in use: [\d.]+ MiB by this session, [\d.]+ MiB by other open sessions; .*AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB/);
      const own = Number(/in use: ([\d.]+) MiB by this session/.exec(text)?.[1]);
      const asked = Number(/; ([\d.]+) MiB more asked/.exec(text)?.[1]);
      assert.match(text, own >= asked ? /remove files you no longer need with rm/ : own === 0 ? /none of it is yours to remove/ : /remove files you no longer need with rm|would not make room/, text);
    }
    assert.ok(files <= BUDGET_MIB, `the sandboxes hold ${files} MiB, at most the ${BUDGET_MIB} MiB budget`);
    assert.ok(files >= BUDGET_MIB - SESSIONS, `and the budget was used: ${files} MiB`);

    const { rss, peak } = rssOf(pid());
    const bound = idle + (BUDGET_MIB + 320) * MIB;
    console.log(`[memory] idle ${Math.round(idle / MIB)} MiB, after ${Math.round(rss / MIB)} MiB, peak ${Math.round(peak / MIB)} MiB, bound ${Math.round(bound / MIB)} MiB, files ${files} MiB, refused ${refused.length}/${SESSIONS}`);
    assert.ok(peak < bound, `peak RSS ${Math.round(peak / MIB)} MiB stays under ${Math.round(bound / MIB)} MiB`);

    // Ending every session gives the budget back: a new session can write again.
    for (const session of sessions) await raw(http.url, { method: "DELETE", headers: sessionHeaders(session) });
    const fresh = await rawInitialize(http.url);
    const again = await exec(http.url, fresh, FILL);
    assert.equal(again.stdout.split("\n")[0], "128", `a new session fills its own 128 MiB: ${again.stdout}`);
    assert.match(again.stdout, /this session's sandbox files would exceed their cap \(128 MiB of 128 MiB in use.*AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB/);
    console.log(`[memory] after the sessions ended and one refilled: RSS ${Math.round(rssOf(pid()).rss / MIB)} MiB`);
  });
});
