import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, ROOT, writePlugin, type Connected, type Payload } from "./helpers.js";

/**
 * agent_tools_exec over real stdio: the built server, the SDK client, the fixture plugins
 * (notes: a class adapter with read-only and mutating tools; tracker: skills).
 */

interface Answer extends Payload {
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
  cwd?: string;
  stopped?: string;
  result?: Record<string, unknown>;
  truncated?: { stdout?: { totalChars: number; shownChars: number }; note: string };
}

async function exec(server: Connected, command: string): Promise<Answer & { isError: boolean }> {
  const { payload, isError } = await callJson(server.client, "agent_tools_exec", { command });
  const answer = payload as Answer;
  assert.equal(isError, answer.exitCode !== 0, "isError is set exactly by a non-zero exit");
  assert.equal(answer.ok, answer.exitCode === 0);
  return { ...answer, isError };
}

describe("agent_tools_exec over stdio", () => {
  let server: Connected;
  before(async () => {
    // A deadline no command line here comes near, even on a loaded 2-core machine: these tests expect
    // success. The deadline itself is tested below, on a server of its own with a short one.
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000", AGENT_TOOLS_EXEC_MAX_OUTPUT_CHARS: "20000" });
  });
  after(() => server.close());

  it("is listed with a description and a required command", async () => {
    const { tools } = await server.client.listTools();
    const tool = tools.find((t) => t.name === "agent_tools_exec");
    assert.ok(tool, "agent_tools_exec is listed");
    assert.match(tool.description ?? "", /sandbox/);
    assert.deepEqual(tool.inputSchema.required, ["command"]);
    // How the text layer works is said here, once (help no longer repeats it).
    assert.match(tool.description ?? "", /<prefix> call TOOL/);
  });

  it("a word used as a plugin command that is none names the plugin commands, the nearest first", async () => {
    const typo = await exec(server, "note call list_notes");
    assert.equal(typo.exitCode, 127);
    assert.match(typo.stderr, /note: command not found/);
    assert.match(typo.stderr, /agent-tools: 'note' is no plugin command here; the plugin commands are: notes, /);
    // Any other unknown word is the shell's alone.
    const other = await exec(server, "frobnicate --now");
    assert.equal(other.exitCode, 127);
    assert.doesNotMatch(other.stderr, /agent-tools:/);
  });

  it("a typed tool's name, a leading --toolName and a language runtime each get the line to write instead", async () => {
    const flagged = await exec(server, `notes call --toolName get_note --id '"n1"'`);
    assert.equal(flagged.exitCode, 0, flagged.stderr);
    assert.equal((JSON.parse(flagged.stdout) as { result: { title: string } }).result.title, "Shopping");
    assert.equal(flagged.stderr, "notes call: --toolName get_note was read as the tool name; the usual form names it first, with no flag: `notes call get_note …`\n");
    const typed = await exec(server, `agent_tools_notes_call '{"toolName":"get_note","arguments":{"id":"n1"}}'`);
    assert.equal(typed.exitCode, 127);
    assert.match(typed.stderr, /^bash: agent_tools_notes_call: command not found\nagent-tools: 'agent_tools_notes_call' is a tool of the MCP server, not a command of this shell: here the same is `notes call TOOL --name value …` or `notes call TOOL '\{json\}'`\n$/);
    const skill = await exec(server, "agent_tools_tracker_run_skill open-summary");
    assert.match(skill.stderr, /here the same is `tracker skill NAME --name value …`\n$/);
    // A prefix this session has no plugin for is written with PLUGIN, and `list` names the commands.
    const other = await exec(server, "agent_tools_nope_discover");
    assert.match(other.stderr, /here the same is `PLUGIN discover WORDS` \(`list` names the plugin commands\)\n$/);
    for (const line of ["python3 -c 'print(1)'", "python -c 'print(1)'", "node -e 'console.log(1)'"]) {
      const ran = await exec(server, line);
      assert.equal(ran.exitCode, 127, line);
      assert.doesNotMatch(ran.stderr, /browser|Node\.js bundle/, line);
      assert.match(ran.stderr, /: command not found\nagent-tools: there is no Python, Node\.js or other language runtime in this sandbox; it has bash itself .*jq, yq, awk, sed, grep.*sqlite3.*\(`ls \/usr\/bin` lists every command\)\n$/, line);
    }
    // Said in a pipeline too, where the line's exit is the last command's.
    const piped = await exec(server, "python3 -c 'print(1)' | cat");
    assert.match(piped.stderr, /no Python, Node\.js or other language runtime/);
  });

  it("a plugin call piped into jq returns only the filtered value", async () => {
    const titles = await exec(server, "notes call list_notes | jq -r '.result.notes[].title'");
    assert.equal(titles.stdout, "Shopping\nRelease plan\n", `exit ${titles.exitCode}: ${titles.stderr}`);
    assert.equal(titles.exitCode, 0);
    const count = await exec(server, `notes call search_notes '{"text":"coffee"}' | jq '.result.hits | length'`);
    assert.equal(count.stdout, "1\n");
    const skill = await exec(server, "tracker skill open-summary | jq -c '.result.byAssignee'");
    assert.equal(skill.stdout, '{"ana":["T-1"],"bo":["T-2"]}\n');
    const discovered = await exec(server, "notes discover remove | jq -r '.matches[0].name'");
    assert.equal(discovered.stdout, "delete_note\n");
  });

  it("stdout that is one JSON document is shown on one line, each line's text kept; pipes and files still see it indented", async () => {
    const typed = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes" });
    const shown = await exec(server, "notes call list_notes");
    assert.equal(shown.stdout.split("\n").length, 2, `one line and its newline: ${shown.stdout}`);
    assert.match(shown.stdout, /^\{"ok": true,"plugin": "notes",/);
    assert.deepEqual(JSON.parse(shown.stdout), typed.payload, "the same document as the typed call's");
    // A pattern copied from the answer matches the line it came from in the sandbox, where it is still indented.
    const grepped = await exec(server, `notes call list_notes | grep '"title": "Shopping"'`);
    assert.match(grepped.stdout, /^ {4,}"title": "Shopping",?\n$/);
    const saved = await exec(server, `notes call list_notes > saved.json; grep -c '"title": ' saved.json`);
    assert.equal(saved.stdout, "2\n", "a saved file has a field per line");
    // Joined, not parsed and written again: a number past 2^53, escapes and blanks inside strings stay as written.
    const written = '{\n  "id": 12345678901234567890,\n  "text": "a  b\\n\\"c\\"",\n  "list": [\n    1.50,\n    -0\n  ]\n}\n';
    const big = await exec(server, `printf '%s' '${written}' > big.json; cat big.json`);
    assert.equal(big.stdout, '{"id": 12345678901234567890,"text": "a  b\\n\\"c\\"","list": [1.50,-0]}\n');
    // Several documents (one per item), JSON lines and text are left as they came.
    const items = await exec(server, "notes call list_notes | jq '.result.notes[] | {id}'");
    assert.equal(items.stdout, '{\n  "id": "n1"\n}\n{\n  "id": "n2"\n}\n');
    const text = await exec(server, "printf '{ not json\\n}\\n'");
    assert.equal(text.stdout, "{ not json\n}\n");
  });

  it("files, exported variables and the working directory persist between calls", async () => {
    const first = await exec(server, "mkdir -p work && cd work && notes call list_notes > notes.json && export PICK=n2 && echo done");
    assert.equal(first.stdout, "done\n");
    assert.equal(first.cwd, "/home/user/work");
    const second = await exec(server, `pwd; jq -r --arg id "$PICK" '.result.notes[] | select(.id == $id) | .title' notes.json`);
    assert.equal(second.stdout, "/home/user/work\nRelease plan\n");
    const third = await exec(server, "cd ..; grep -c '\"id\"' work/notes.json");
    assert.equal(third.stdout, "2\n");
    assert.equal(third.cwd, "/home/user");
  });

  it("a mutating tool without --confirm is refused exactly as through _call, with exit 4", async () => {
    const typed = await callJson(server.client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "t", body: "b" } });
    const shell = await exec(server, "notes call create_note --title t --body b");
    assert.equal(shell.exitCode, 4);
    const printed = JSON.parse(shell.stdout) as Payload;
    assert.equal(typed.isError, true);
    // The message is said once, on stderr (seen even when stdout goes into jq); the JSON has the rest.
    const { message, ...rest } = typed.payload.error ?? {};
    assert.equal(shell.stderr, `notes call: CONFIRM_REQUIRED: ${message} (add --confirm to run it)\n`);
    // The hint is in the command line's words (--confirm), not the typed tools' (confirm: true next to toolName).
    assert.deepEqual(printed.error, { ...rest, hint: printed.error?.hint }, "same code and details");
    assert.match(String(printed.error?.hint), /--confirm/);
    assert.equal(printed.error?.code, "CONFIRM_REQUIRED");
    const created = await exec(server, "notes call create_note --title t --body b --confirm | jq -r .result.id");
    assert.equal(created.stdout, "n3\n");
    const typedJson = await exec(server, `notes call create_note '{"title":"u","body":"v"}' --confirm | jq -r .result.id`);
    assert.equal(typedJson.stdout, "n4\n");
  });

  it("--confirm and flags before or after the tool name make the same call; a flag before the name is refused", async () => {
    const created: string[] = [];
    for (const line of ["notes call --confirm create_note --title same --body words", "notes call create_note --body words --confirm --title same"]) {
      const ran = await exec(server, `${line} | jq -r .result.id`);
      assert.equal(ran.exitCode, 0, `${line}: ${ran.stderr}`);
      created.push(ran.stdout.trim());
    }
    for (const id of created) {
      const note = JSON.parse((await exec(server, `notes call get_note --id '"${id}"' | jq -c .result`)).stdout) as { title: string; body: string };
      assert.deepEqual([note.title, note.body], ["same", "words"], id);
    }
    const early = await exec(server, "notes call --title same create_note --body words --confirm");
    assert.equal(early.exitCode, 2);
    assert.match(early.stderr, /^notes call: '--title' came before the tool name; name the tool first/);
    const limit = await exec(server, "notes discover note --limit ten");
    assert.equal(limit.exitCode, 2);
    assert.match(limit.stderr, /^notes discover: --limit needs a whole number from 1 to 50, e\.g\. --limit 5 \(got the string "ten"\)/);
  });

  it("skill flags are typed against the skill's args schema, explained, and --help shows the skill", async () => {
    const created = await exec(server, `notes call create_note '{"title":"year","body":"b","tags":["4242"]}' --confirm`);
    assert.equal(created.exitCode, 0, created.stderr);
    // The count skill's args schema types tag as a string: --tag 4242 is sent as the text "4242".
    const counted = await exec(server, "notes skill count --tag 4242 | jq -c .result");
    assert.equal(counted.exitCode, 0, counted.stderr);
    assert.equal(counted.stdout, '{"count":1}\n');
    const bare = await exec(server, "notes skill count --tag");
    assert.equal(bare.exitCode, 2);
    assert.match(bare.stderr, /^notes skill: ARG_VALIDATION_FAILED: .*\(--tag had no value \(the next word was another flag, or none\), so it was read as true; give its value right after it\)/);
    const help = await exec(server, "notes skill count --help");
    assert.equal(help.exitCode, 0, help.stderr);
    const described = JSON.parse(help.stdout) as { skill: { name: string; description: string; args: { properties: Record<string, unknown> } } };
    assert.equal(described.skill.name, "count");
    assert.match(described.skill.description, /Count notes/);
    assert.deepEqual(Object.keys(described.skill.args.properties), ["tag"]);
    const unknown = await exec(server, "notes skill no_such_skill --help");
    assert.notEqual(unknown.exitCode, 0);
    assert.match(unknown.stderr, /no_such_skill/);
  });

  it("a refused write says to confirm with --confirm, in the command line's words, not the typed tools'", async () => {
    const plain = await exec(server, "notes call create_note --title a --body b");
    assert.equal(plain.exitCode, 4);
    const hint = (JSON.parse(plain.stdout) as Payload).error?.hint ?? "";
    assert.match(hint, /run the same command again with --confirm/);
    assert.doesNotMatch(hint, /top level|toolName/);
    const inJson = await exec(server, `notes call create_note '{"title":"a","body":"b","confirm":true}'`);
    assert.equal(inJson.exitCode, 4);
    assert.match(inJson.stderr, /The 'confirm' in the JSON arguments was not honoured: a command line confirms with --confirm\. \(add --confirm to run it\)/);
    assert.doesNotMatch(inJson.stderr + inJson.stdout, /top level|toolName/);
  });

  it("discover refuses a flag it does not take, naming the ones it does, instead of ignoring it", async () => {
    const detail = await exec(server, "notes discover --tool create_note --detail");
    assert.equal(detail.exitCode, 2);
    assert.equal(detail.stdout, "");
    assert.match(detail.stderr, /^notes discover: discover takes no --tool, --detail: its flags are --query WORDS \(or the words themselves\) and --limit N; for a tool's description and parameters, run `notes call TOOL --help`/);
    const other = await exec(server, "notes discover note --verbose");
    assert.equal(other.exitCode, 2);
    assert.doesNotMatch(other.stderr, /call TOOL --help/);
    assert.match(other.stderr, /discover takes no --verbose: its flags are --query WORDS/);
    // --confirm is read as the gate, not kept among the flags: refused all the same.
    const confirm = await exec(server, "notes discover note --confirm");
    assert.equal(confirm.exitCode, 2);
    assert.equal(confirm.stdout, "");
    assert.match(confirm.stderr, /^notes discover: discover takes no --confirm: its flags are --query WORDS \(or the words themselves\) and --limit N; discover runs nothing, so there is nothing to confirm/);
    // The flags it takes still work.
    const taken = await exec(server, "notes discover --query remove --limit 1 | jq -r '.matches[0].name'");
    assert.equal(taken.exitCode, 0, taken.stderr);
    assert.equal(taken.stdout, "delete_note\n");
  });

  it("--help with --confirm is refused saying --help runs nothing, not to send help as an argument", async () => {
    const refused = await exec(server, "notes call create_note --help --confirm");
    assert.equal(refused.exitCode, 2);
    assert.equal(refused.stdout, "");
    assert.match(refused.stderr, /^notes call: --confirm with --help is refused: --help shows the parameters and runs nothing, so there is nothing to confirm/);
    assert.doesNotMatch(refused.stderr, /--help=true/);
    const help = await exec(server, "notes call create_note --help");
    assert.equal(help.exitCode, 0, help.stderr);
    assert.match(help.stdout, /title/);
  });

  it("validation, unknown tools and the loop breaker are the typed facade's, with their exit codes", async () => {
    // A JSON array for a string parameter is its text (flag-call.ts): a bare flag (true) is what fails validation.
    const invalid = await exec(server, "notes call get_note --id");
    assert.equal(invalid.exitCode, 2);
    assert.equal((JSON.parse(invalid.stdout) as Payload).error?.code, "ARG_VALIDATION_FAILED");
    assert.equal((await exec(server, `notes call get_note --id '"n1"' | jq -r .result.title`)).stdout, "Shopping\n");
    const unknown = await exec(server, "notes call list_notez");
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /^notes call: UNKNOWN_TOOL: plugin 'notes' has no tool 'list_notez'; did you mean 'list_notes'/);
    assert.doesNotMatch(unknown.stdout, /has no tool/, "the message is on stderr only");
    assert.equal(((JSON.parse(unknown.stdout) as Payload).error?.details?.suggestions as string[] | undefined)?.[0], "list_notes");
    // A script's `|| echo failed` and `| jq .error.code` still work.
    // (Other names: a third identical failure would be the loop breaker's.)
    assert.equal((await exec(server, "notes call list_notey || echo failed")).stdout.split("\n").at(-2), "failed");
    assert.equal((await exec(server, "notes call list_notew | jq -r .error.code")).stdout, "UNKNOWN_TOOL\n");
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await exec(server, "notes call get_note --id --draft")).exitCode);
    assert.deepEqual(codes, [2, 2, 6], "third identical failure a retry cannot fix: LOOP_DETECTED, exit 6");
    const upstream: number[] = [];
    for (let i = 0; i < 3; i++) upstream.push((await exec(server, "notes call fail_always")).exitCode);
    assert.deepEqual(upstream, [1, 1, 1], "a failing service is never a loop: a retry may reach it");
    const usage = await exec(server, "notes frobnicate");
    assert.equal(usage.exitCode, 2);
    assert.match(usage.stderr, /usage: notes discover/);
    const notConfigured = await exec(server, "vault call anything");
    assert.equal(notConfigured.exitCode, 3);
  });

  it("status, list and load; a path outside commands/ is refused", async () => {
    const status = await exec(server, "status");
    const result = status.result as { status: string; sandbox: { profile: string; timeoutMs: number }; modules: { name: string; variables: { name: string }[] }[]; missing: string[] };
    assert.match(result.status, /^READY/);
    assert.equal(result.sandbox.profile, "hardened");
    assert.equal(result.sandbox.timeoutMs, 20000);
    assert.deepEqual(result.modules.map((m) => m.name).sort(), ["generic-mcp", "local-cli", "n8n-mcp", "rest-api", "runtime-demo", "stdio-mcp"]);
    assert.ok(result.modules.find((m) => m.name === "n8n-mcp")?.variables.some((v) => v.name === "N8N_MCP_TOKEN"));
    assert.ok(result.missing.some((m) => /plugin 'vault'/.test(m)));
    const list = await exec(server, "list");
    const names = (list.result as { commands: { name: string }[] }).commands.map((c) => c.name);
    assert.deepEqual(names, ["notes", "tracker", "vault"]);
    // Every plugin command's usage is said once, not per plugin; what a plugin lacks once per answer.
    for (const answer of [status, list]) {
      const { pluginUsage, commands } = answer.result as { pluginUsage: string; commands: Array<Record<string, unknown>> };
      assert.match(pluginUsage, /^PLUGIN discover \[QUERY…\].*PLUGIN call TOOL .*PLUGIN skill NAME/);
      assert.ok(commands.every((c) => c.usage === undefined && c.plugin === undefined), JSON.stringify(commands));
    }
    const statusCommands = (status.result as { commands: Array<Record<string, unknown>> }).commands;
    assert.ok(statusCommands.every((c) => c.missing === undefined), "status says what is missing in its top-level `missing` only");
    const listCommands = (list.result as { commands: Array<Record<string, unknown>> }).commands;
    assert.match(String(listCommands.find((c) => c.name === "vault")?.missing), /VAULT_FIXTURE_TOKEN/);
    assert.deepEqual(listCommands.find((c) => c.name === "tracker")?.skills !== undefined, true);
    // The command list names for the shell's own commands lists them, the plugins' too.
    const listing = /`(ls [^`]+)` lists every command/.exec(String(list.result?.builtins))?.[1];
    assert.ok(listing, JSON.stringify(list.result?.builtins));
    const commands = (await exec(server, listing)).stdout.split("\n");
    for (const name of ["jq", "grep", "ls", "notes", "tracker"]) assert.ok(commands.includes(name), `${listing} lists ${name}: ${commands.join(" ")}`);
    const outside = await exec(server, "load ../outside.mjs");
    assert.equal(outside.exitCode, 7);
    assert.match(outside.stderr, /outside the runtime's commands\/ folder/);
    const loaded = await exec(server, "load commands/runtime-demo.mjs");
    assert.equal(loaded.exitCode, 0);
    assert.equal((await exec(server, "runtime-echo hello")).stdout, "hello\n");
    const after = (await exec(server, "list")).result as { commands: { name: string; kind: string }[] };
    assert.ok(after.commands.some((c) => c.name === "runtime-echo" && c.kind === "module"));
    const empty = await exec(server, "   ");
    assert.equal(empty.exitCode, 2);
    assert.equal(empty.error?.code, "EMPTY_COMMAND");
    assert.equal(empty.stderr, "", "nothing ran: `error` says it, stderr does not repeat it");
    // An array of words was answered "'command' is empty"; it names what was sent now.
    for (const [command, kind] of [[["ls", "-la"], "an array"], [{ line: "ls" }, "an object"], [5, "a number"]] as const) {
      const { payload, isError } = await callJson(server.client, "agent_tools_exec", { command });
      assert.equal(isError, true);
      assert.equal(payload.exitCode, 2);
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(payload.error?.message ?? "", new RegExp(`'command' must be one string, a shell command line, not ${kind}`));
    }
  });

  it("a large result is cut with an honest marker; filtered in the sandbox it is small", async () => {
    const raw = await exec(server, `notes call big_dump '{"size":60000}'`);
    assert.equal(raw.exitCode, 0);
    assert.equal(raw.stdout.length, 20000);
    assert.ok((raw.truncated?.stdout?.totalChars ?? 0) > 60000);
    assert.match(raw.truncated?.note ?? "", /filter it in the sandbox/);
    // Past the typed facade's 100,000-character result cap: the sandbox gets it whole, to filter.
    const small = await exec(server, `notes call big_dump '{"size":300000}' | jq '.result.data | length'`);
    assert.equal(small.stdout, "300000\n");
    assert.equal(small.truncated, undefined);
    const typed = await callJson(server.client, "agent_tools_notes_call", { toolName: "big_dump", arguments: { size: 300000 } });
    assert.ok(typed.payload.truncated, "the typed facade cuts the same result");
    // Its note points where the whole result can be had, which the lines above did.
    assert.equal(
      (typed.payload.truncated as { note: string }).note,
      "The result was cut to fit; `result` holds the first characters of its JSON. Ask for less: the tool's filter, search, fields or page-size arguments (e.g. limit, per_page, fields, q), a narrower range, or one page at a time; or make the same call in agent_tools_exec (`notes call big_dump '{\"size\":300000}'`), which takes results up to 5,000,000 characters, and filter it there with jq or grep.",
    );
  });

  it("answers inside a command line speak its words: discover's next is a command line, writes are confirmed with --confirm, a misdirected name says the command", async () => {
    const discovered = await exec(server, "notes discover create note");
    const answer = JSON.parse(discovered.stdout) as { next?: unknown; confirm?: string };
    assert.equal(answer.next, `notes call create_note '{"title":"<string>","body":"<string>"}'`);
    assert.equal(answer.confirm, "writes: true changes data; add --confirm to the command line only if the user asked");
    const skillAsTool = await exec(server, "notes call count");
    assert.equal(skillAsTool.exitCode, 2);
    assert.match(skillAsTool.stderr, /'count' is a skill of this plugin: run `notes skill count`/);
    assert.equal((JSON.parse(skillAsTool.stdout) as { error: { details: { next: unknown } } }).error.details.next, "notes skill count");
    const toolAsSkill = await exec(server, "notes skill list_notes");
    assert.match(toolAsSkill.stderr, /'list_notes' is a tool of this plugin: run `notes call list_notes`/);
    // The typed discover keeps the typed tools' advice.
    const typed = await callJson(server.client, "agent_tools_notes_discover", { query: "create note" });
    assert.match(String(typed.payload.confirm), /add confirm: true \(top level\) only if the user asked/);
  });
});

describe("a cut result's note for a plugin whose command is plugin-<prefix>", () => {
  let server: Connected;
  let dir: string;
  before(async () => {
    // The notes fixture under the prefix `test`, a shell builtin: its command is plugin-test.
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-test-prefix-"));
    const source = path.join(ROOT, "test", "fixtures", "plugins", "agent-tools-plugin-notes");
    const manifest = { ...(JSON.parse(readFileSync(path.join(source, "plugin.json"), "utf8")) as Record<string, unknown>), name: "test", prefix: "test", skills: undefined };
    writePlugin(path.join(dir, "agent-tools-plugin-test"), manifest, { "adapter.mjs": readFileSync(path.join(source, "adapter.mjs"), "utf8") });
    server = await connect(dir, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the real command with the tool and its arguments, and that line gets the whole result", async () => {
    const typed = await callJson(server.client, "agent_tools_test_call", { toolName: "big_dump", arguments: { size: 300000 } });
    const note = (typed.payload.truncated as { note: string }).note;
    const line = `plugin-test call big_dump '{"size":300000}'`;
    assert.ok(note.includes(`(\`${line}\`)`), note);
    const followed = await exec(server, `${line} | jq '.result.data | length'`);
    assert.equal(followed.stdout, "300000\n", followed.stderr);
  });
});

describe("agent_tools_exec past its deadline", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "1500" });
    // The first command line loads the shell and its commands lazily; on a loaded 2-core machine
    // that alone can take most of the short 1.5 s deadline, so it is paid here.
    await callJson(server.client, "agent_tools_exec", { command: "true" });
  });
  after(() => server.close());

  it("a runaway loop ends at the deadline with a clear message, and the session keeps working", async () => {
    await exec(server, "echo kept > /tmp/kept.txt; export KEPT=yes");
    const loop = await exec(server, "while true; do sleep 0.01; done");
    assert.equal(loop.exitCode, 124);
    assert.equal(loop.stopped, "deadline");
    assert.match(loop.stderr, /ran past its deadline of 1500 ms and was stopped/);
    const busy = await exec(server, "while true; do :; done");
    // On a quiet machine the hardened command limit ends a busy loop before the deadline (126); on a
    // loaded one the deadline can come first (124). Either way it is stopped with a message saying which.
    assert.ok([124, 126].includes(busy.exitCode), `a busy loop is stopped, got exit ${busy.exitCode}`);
    assert.match(busy.stderr, busy.exitCode === 126 ? /sandbox limit/ : /ran past its deadline of 1500 ms/);
    const plugin = await exec(server, `notes call slow_echo '{"ms":5000,"text":"late"}'`);
    assert.equal(plugin.exitCode, 124, "a plugin call past the deadline is stopped too");
    const afterwards = await exec(server, "cat /tmp/kept.txt; echo $KEPT");
    assert.equal(afterwards.stdout, "kept\nyes\n");
  });
});

describe("the README's pipelines", () => {
  let server: Connected;
  before(async () => {
    server = await connect();
  });
  after(() => server.close());

  it("the loop over ids runs as written, against the tracker fixture", async () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const loop = /^for id in \$\(tracker call[\s\S]*?^done$/m.exec(readme)?.[0];
    assert.ok(loop, "the README has the loop");
    const answer = await exec(server, loop);
    assert.equal(answer.stdout, "T-1 → ana\nT-2 → ana\n", answer.stderr);
  });

  it("the shapes of the other two: jq over a call, grep over a saved file", async () => {
    const titles = await exec(server, `notes call list_notes | jq -r '.result.notes[] | select(.id != "n1") | "#\\(.id) \\(.title)"' | head -5`);
    assert.equal(titles.stdout, "#n2 Release plan\n");
    const saved = await exec(server, "notes call search_notes --text an | jq -r '.result.hits[].body' > bodies.txt; grep -c , bodies.txt; grep -oE '[a-z]+' bodies.txt | sort | uniq -c | sort -rn | head -1");
    assert.match(saved.stdout, /^2\n\s+\d+ \w+\n$/);
  });
});

describe("agent_tools_exec cancellation", () => {
  let server: Connected;
  before(async () => {
    server = await connect();
  });
  after(() => server.close());

  it("a cancelled request stops its command line; the next one runs at once", { timeout: 20_000 }, async () => {
    const controller = new AbortController();
    const pending = server.client.callTool({ name: "agent_tools_exec", arguments: { command: "sleep 25; echo too-late > /tmp/late" } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(pending);
    // With the default 30 s deadline, this would wait ~25 s behind the sleep if it had not been stopped.
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: "cat /tmp/late 2>/dev/null || echo stopped" });
    assert.equal(payload.stdout, "stopped\n");
  });
});

describe("agent_tools_exec with a fleet of 12 plugins", () => {
  let server: Connected;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-exec-fleet-"));
    for (let i = 1; i <= 12; i++) {
      writePlugin(path.join(dir, `agent-tools-plugin-svc${i}`), { name: `svc${i}`, prefix: `svc${i}`, description: `Service ${i}.`, adapter: "./adapter.mjs" }, {
        "adapter.mjs": "export default class { async listTools() { return { tools: [] }; } async call() { return {}; } }\n",
      });
    }
    server = await connect(dir, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a mistyped plugin word names the nearest five plugin commands and counts the rest", async () => {
    const typo = await exec(server, "svc call get_widget");
    assert.equal(typo.exitCode, 127);
    const line = /agent-tools: 'svc' is no plugin command here; the nearest plugin commands are: ((?:svc\d+, ){4}svc\d+) and 7 more \(`list` shows them all\)\n/.exec(typo.stderr);
    assert.ok(line, typo.stderr);
    const list = await exec(server, "list");
    assert.equal((list.result as { commands: unknown[] }).commands.length, 12, "list has them all");
  });
});
