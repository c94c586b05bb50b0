import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected, type Payload } from "./helpers.js";

/**
 * The text layer's budgets and refusals over real stdio: the built server, the SDK client, the
 * fixture plugins. Carried variables and hard links count against the sandbox's memory; a write
 * the budget refuses fails that write, not the line's output, variables and directory; output
 * made before a deadline is kept; words that were read wrongly are said.
 */

interface Answer extends Payload {
  exitCode: number;
  stdout: string;
  stderr: string;
  cwd?: string;
  stopped?: string;
}

async function exec(server: Connected, command: string): Promise<Answer> {
  const { payload, isError } = await callJson(server.client, "agent_tools_exec", { command });
  const answer = payload as Answer;
  assert.equal(isError, answer.exitCode !== 0, "isError is set exactly by a non-zero exit");
  return answer;
}

describe("agent_tools_exec: the sandbox's memory budget", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "30000", AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB: "2" });
  });
  after(() => server.close());

  it("carried variables count against it: those past the cap are named and not kept, the largest first, the rest of the line is", async () => {
    // 2.7 MB in three variables, each under the 1 MiB a carried variable may hold: two fit the 2 MiB cap.
    const big = await exec(server, "export SMALL=kept; x=$(printf '%0900000d' 0); A=$x; B=$x; C=${x}more; unset x; echo done");
    assert.equal(big.exitCode, 126, big.stderr);
    assert.equal(big.stdout, "done\n");
    assert.match(big.stderr, /variables not kept for the next call .*: C \(900005 bytes\)\..*AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB.*unset variables you no longer need/);
    const next = await exec(server, 'echo "${#A} ${#B} ${#C} $SMALL"; unset A B');
    assert.equal(next.stdout, "900000 900000 0 kept\n");
  });

  it("a hard link is charged as a copy, and removing a name credits it", async () => {
    const links = await exec(server, "printf '%0800000d' 0 > a; ln a h1; ln a h2; echo $?; ls");
    assert.match(links.stderr, /ENOSPC: this session's sandbox files would exceed their cap/);
    assert.equal(links.stdout, "1\na\nh1\n");
    const freed = await exec(server, "rm a h1; printf '%0800000d' 0 > b; ln b h3 && echo linked");
    assert.equal(freed.stdout, "linked\n", freed.stderr);
    await exec(server, "rm -f b h3");
  });

  it("a write it refuses fails with the file named; the output, variables and directory before it are kept", async () => {
    const line = await exec(server, "echo before; notes call list_notes | jq -r '.result.notes[0].title'; export X=1; cd /tmp; printf '%03000000d' 0 > big; echo after");
    assert.equal(line.exitCode, 1);
    assert.equal(line.stdout, "before\nShopping\n");
    assert.match(line.stderr, /\/tmp\/big: ENOSPC: this session's sandbox files would exceed their cap .*AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB/);
    assert.equal(line.cwd, "/tmp");
    const next = await exec(server, "echo $X; pwd; wc -c < big");
    assert.equal(next.stdout.replace(/ +/g, ""), "1\n/tmp\n0\n", "the refused file is left empty, as on a full disk");
  });
});

describe("agent_tools_exec: what the variables a session carries may hold", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "60000" });
  });
  after(() => server.close());

  it("one variable over 1 MiB is not carried, named with a way to keep it in a file; the line's output and other variables are kept", async () => {
    // Carried, a 30 MB variable cost every later line that read it 1.2 s of the server's one thread.
    const big = await exec(server, "SMALL=kept; BIG=$(printf '%*s' 2000000 ''); echo ${#BIG}; printf '%s' \"$BIG\" > /tmp/BIG");
    assert.equal(big.exitCode, 126, big.stderr);
    assert.equal(big.stdout, "2000000\n", "the line itself had the variable");
    assert.equal(
      big.stderr,
      "agent-tools: variables not kept for the next call (they keep their value from before this command line; new ones are unset): BIG (1.9 MiB). A carried variable holds at most 1 MiB (every later line pays for its size again); keep a large value in a file instead: printf '%s' \"$BIG\" > /tmp/BIG, then give the file to the next command (jq . /tmp/BIG), or read it back with \"$(cat /tmp/BIG)\"\n",
    );
    const next = await exec(server, 'echo "${#BIG} $SMALL"; wc -c < /tmp/BIG');
    assert.equal(next.stdout.replace(/ +/g, ""), "0 kept\n2000000\n".replace(/ +/g, ""));
    // One that was carried keeps its value when a line grows it past the cap.
    const grown = await exec(server, "SMALL=$(printf '%*s' 1100000 ''); echo ${#SMALL}");
    assert.equal(grown.exitCode, 126);
    assert.equal((await exec(server, "echo $SMALL")).stdout, "kept\n");
  });

  it("all of them over 4 MiB: the largest the line grew are not carried until the rest fits", async () => {
    const many = await exec(server, "x=$(printf '%*s' 1000000 ''); V1=$x; V2=$x; V3=$x; V4=$x; V5=${x}five; unset x; echo set");
    assert.equal(many.exitCode, 126, many.stderr);
    assert.equal(many.stdout, "set\n");
    assert.match(many.stderr, /^agent-tools: variables not kept for the next call \(.*\): V5 \(1000006 bytes\)\. The variables a session carries hold at most 4 MiB in all \(every later line pays for them again\); unset variables you no longer need, and keep large values in files\n$/);
    const next = await exec(server, 'echo "${#V1} ${#V4} ${#V5}"; unset V1 V2 V3 V4');
    assert.equal(next.stdout, "1000000 1000000 0\n");
    assert.equal((await exec(server, "V5=$(printf '%*s' 1000000 ''); echo ${#V5}")).exitCode, 0, "once unset, they make room again");
  });
});

describe("agent_tools_exec: what was done before a deadline", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "3000" });
    await callJson(server.client, "agent_tools_exec", { command: "true" });
  });
  after(() => server.close());

  it("keeps the output written before the stop, and the writes' answers", async () => {
    const stopped = await exec(server, "echo partial-output; echo err-partial >&2; notes call create_note --title a --body b --confirm | jq -r .result.id; sleep 20");
    assert.equal(stopped.exitCode, 124);
    assert.equal(stopped.stopped, "deadline");
    assert.equal(stopped.stdout, "partial-output\nn3\n");
    assert.match(stopped.stderr, /^err-partial\n[\s\S]*ran past its deadline of 3000 ms/);
  });
});

describe("agent_tools_exec: words read wrongly are said", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "30000" });
  });
  after(() => server.close());

  it("a flag read as a number for a string parameter is sent as its text; a flag with no value is named", async () => {
    const digits = await exec(server, "notes call create_note --title 1.0 --body 123 --confirm >/dev/null && notes call list_notes | jq -c '[.result.notes[].title]'");
    assert.equal(digits.stdout, '["Shopping","Release plan","1.0"]\n', digits.stderr);
    const bare = await exec(server, "notes call create_note --title --body b --confirm");
    assert.equal(bare.exitCode, 2);
    assert.match(bare.stderr, /--title had no value \(the next word was another flag, or none\), so it was read as true/);
  });

  it("stdin that is not a JSON object, and a flag given twice, are usage errors naming them", async () => {
    const array = await exec(server, "echo '[1,2]' | notes call list_notes");
    assert.equal(array.exitCode, 2);
    assert.match(array.stderr, /stdin holds a JSON array \('\[1,2\]'\), not the JSON object of arguments: pipe one JSON object/);
    const garbage = await exec(server, "echo garbage | notes call list_notes");
    assert.equal(garbage.exitCode, 2);
    assert.match(garbage.stderr, /stdin holds 'garbage', which is not JSON/);
    const twice = await exec(server, "notes call list_notes --tag=home --tag=work");
    assert.equal(twice.exitCode, 2);
    assert.match(twice.stderr, /--tag was given twice: give it once/);
  });

  it("a --confirm that may be a flag's value, or a second --confirm, confirms nothing: exit 2 and nothing is created", async () => {
    const before = await exec(server, "notes call list_notes | jq -c '.result | length'");
    for (const [line, said] of [
      // The variable's text could come from an earlier result: it is --title's value, or nothing.
      [`title="--confirm"; notes call create_note --body b --title "$title"`, /notes call: --confirm right after --title, which got no value, is refused: .*--title=VALUE/],
      [`notes call create_note --title t --body b --confirm --confirm`, /notes call: --confirm was given twice: give it once/],
      [`notes call --confirm create_note --title t --body b --confirm`, /notes call: --confirm was given twice: give it once/],
    ] as const) {
      const answer = await exec(server, line);
      assert.equal(answer.exitCode, 2, `${line}: ${answer.stderr}`);
      assert.match(answer.stderr, said, line);
    }
    const after = await exec(server, "notes call list_notes | jq -c '.result | length'");
    assert.equal(after.stdout, before.stdout, "no note was created");
    const asValue = await exec(server, `title="--confirm"; notes call create_note --body b --title="$title"`);
    assert.equal(asValue.exitCode, 4, "written --title=…, the text is the title and the call still awaits its confirm");
  });

  it("__proto__ as an argument name is refused with exit 2 and nothing is created", async () => {
    const before = await exec(server, "notes call list_notes | jq -c '.result | length'");
    for (const line of [
      `notes call create_note --__proto__ '{"title":"proto","body":"b"}' --confirm`,
      `notes call create_note '{"__proto__":{"title":"proto","body":"b"}}' --confirm`,
      `echo '{"__proto__":{"title":"proto","body":"b"}}' | notes call create_note --confirm`,
    ]) {
      const answer = await exec(server, line);
      assert.equal(answer.exitCode, 2, `${line}: ${answer.stderr}`);
      assert.match(answer.stderr, /'__proto__' cannot be an argument name/, line);
    }
    const after = await exec(server, "notes call list_notes | jq -c '.result | length'");
    assert.equal(after.stdout, before.stdout, "no note was created");
  });

  it("status, list and load used inside a shell line, with flags or in capitals are refused saying how to use them", async () => {
    for (const [command, got] of [
      ["list | jq .", /list takes no other words here \(got '\| jq \.'\)/],
      ["status --verbose", /status takes no flags \(got '--verbose'\)/],
      ["STATUS", /'STATUS' must be written in lower case: send `status`/],
      ["load runtime-demo | jq .", /load takes no other words here \(got 'runtime-demo \| jq \.'\)/],
      ["load --verbose runtime-demo", /load takes no flags \(got '--verbose'\)/],
      ["load runtime-demo extra", /load takes no other words here \(got 'runtime-demo extra'\)/],
    ] as const) {
      const answer = await exec(server, command);
      assert.equal(answer.exitCode, 2, command);
      assert.match(answer.stderr, got);
      assert.match(answer.stderr, /only as the whole command/);
    }
  });

  it("a result of a few MB pipes through jq, grep and seq within the sandbox's limits", async () => {
    const count = await exec(server, "notes call big_dump --size 3000000 | jq -r '.result.data | length'");
    assert.equal(count.stdout, "3000000\n", count.stderr);
    const cut = await exec(server, "notes call big_dump --size 5000001 | jq -r '.result | type'");
    assert.equal(cut.stdout, "string\n");
    assert.match(cut.stderr, /notes call: the result was cut at \d+ of \d+ characters, so \.result is a string, not the tool's JSON\. Ask for less: .*, and filter that with jq\./);
    const lines = await exec(server, "{ seq 1 90000; seq 1 90000; } > n.txt; grep -c 1 n.txt; seq 1 20000 | tail -1");
    assert.equal(lines.exitCode, 0, lines.stderr);
    assert.match(lines.stdout, /^\d+\n20000\n$/);
  });
});
