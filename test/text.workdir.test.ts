import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../src/config/config.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { createTextLayer } from "../src/text/text-layer.js";

/** The optional /workdir mount: the host directory readable, never written, credential files hidden. */

describe("the /workdir mount", () => {
  let runtime: Runtime;
  let dir: string;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-"));
    mkdirSync(path.join(dir, "src"));
    mkdirSync(path.join(dir, ".git"));
    writeFileSync(path.join(dir, "src", "app.ts"), "// TODO: one\nconst a = 1;\n// TODO: two\n");
    writeFileSync(path.join(dir, "README.md"), "hello\n");
    writeFileSync(path.join(dir, ".env"), "API_KEY=dotenv-secret-1\n");
    writeFileSync(path.join(dir, ".env.local"), "API_KEY=dotenv-secret-2\n");
    writeFileSync(path.join(dir, "agent-tools.config.json"), '{"mcpServers":{"x":{"command":"y","env":{"K":"config-secret-3"}}}}');
    writeFileSync(path.join(dir, "deploy.pem"), "-----BEGIN PRIVATE KEY----- pem-secret-4");
    writeFileSync(path.join(dir, "my-config.json"), '{"token":"named-config-secret-5"}');
    writeFileSync(path.join(dir, ".git", "config"), "url = https://user:git-secret-6@example.com/r.git\n");
  });
  after(() => runtime.close());

  it("grep finds local files; writes stay in memory; credential files do not exist for the sandbox", async () => {
    const layer = createTextLayer(runtime, { mountDir: dir, env: { AGENT_TOOLS_CONFIG: path.join(dir, "my-config.json") } });
    const session = runtime.createSession();
    const grep = await layer.exec(session, "cd /workdir && grep -rn TODO . | wc -l");
    assert.equal(grep.stdout.trim(), "2", grep.stderr);
    assert.equal(grep.cwd, "/workdir");
    const write = await layer.exec(session, "echo changed > README.md && cat README.md && echo new > created.txt");
    assert.equal(write.stdout, "changed\n");
    assert.equal(readFileSync(path.join(dir, "README.md"), "utf8"), "hello\n", "the real file is untouched");
    assert.equal(readdirSync(dir).includes("created.txt"), false);
    const listing = await layer.exec(session, "ls -a /workdir; find /workdir -type f");
    for (const name of [".env", ".env.local", "agent-tools.config.json", "deploy.pem", "my-config.json", ".git"]) {
      assert.ok(!listing.stdout.split(/\s|\//).includes(name), `${name} is not listed`);
    }
    const everything = await layer.exec(session, "cat /workdir/.env /workdir/.env.local /workdir/agent-tools.config.json /workdir/deploy.pem /workdir/my-config.json /workdir/.git/config; grep -r secret /workdir; cp /workdir/.env /tmp/x; echo end");
    assert.match(everything.stderr, /\.env: No such file or directory/);
    assert.doesNotMatch(everything.stdout + everything.stderr, /secret-\d/);
    assert.equal(everything.stdout, "end\n");
    const overwrite = await layer.exec(session, "echo replaced > /workdir/.env; echo rc=$?; cat /workdir/.env");
    assert.equal(overwrite.stdout, "rc=0\n", "a write to a hidden file is dropped, not an error that ends the line");
    assert.equal(readFileSync(path.join(dir, ".env"), "utf8"), "API_KEY=dotenv-secret-1\n");
    assert.equal((await layer.exec(session, "ls ~ /tmp")).exitCode, 0, "home and /tmp exist beside the mount");
    await closeSession(session);
  });
});

describe("the mounted working directory and a config file named by --config", () => {
  it("hides the config file the runtime loaded, whatever named it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-config-"));
    const file = path.join(dir, "team-settings.json");
    writeFileSync(file, '{"mcpServers":{"x":{"command":"y","env":{"K":"loaded-config-secret-7"}}}}');
    writeFileSync(path.join(dir, "notes.txt"), "visible\n");
    const config = await loadConfig(file);
    const runtime = await createRuntime({ config, pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir, env: {} });
      const session = runtime.createSession();
      const seen = await layer.exec(session, "ls /workdir; cat /workdir/team-settings.json; grep -r secret /workdir; echo end");
      assert.match(seen.stdout, /notes\.txt/);
      assert.doesNotMatch(seen.stdout, /team-settings|loaded-config-secret-7/);
    } finally {
      await runtime.close();
    }
  });
});

describe("credential names in any case or Windows spelling", () => {
  it("hides .ENV, .GIT, .SSH, ID_RSA, .NPMRC, Credentials.json, `.env.` and stream suffixes like the lower-case names", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-case-"));
    mkdirSync(path.join(dir, ".GIT"));
    mkdirSync(path.join(dir, ".SSH"));
    writeFileSync(path.join(dir, ".GIT", "config"), "url = https://u:case-secret-1@example.com/r.git\n");
    writeFileSync(path.join(dir, ".SSH", "key"), "case-secret-2\n");
    const files: Record<string, string> = {
      ".ENV": "case-secret-3",
      "ID_RSA": "case-secret-4",
      ".NPMRC": "case-secret-5",
      "Credentials.json": "case-secret-6",
      ".Env.Local": "case-secret-7",
      ".env.": "case-secret-8",
      ".env::$DATA": "case-secret-9",
      "Deploy.PEM": "case-secret-10",
      "MY-CONFIG.JSON": "case-secret-11",
    };
    for (const [name, body] of Object.entries(files)) writeFileSync(path.join(dir, name), `${body}\n`);
    writeFileSync(path.join(dir, "Notes.txt"), "visible\n");
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      // The config named in the environment is "my-config.json": its upper-case twin is hidden too.
      const layer = createTextLayer(runtime, { mountDir: dir, env: { AGENT_TOOLS_CONFIG: path.join(dir, "my-config.json") } });
      const session = runtime.createSession();
      const names = Object.keys(files).map((n) => `'/workdir/${n}'`).join(" ");
      const seen = await layer.exec(session, `ls -a /workdir; cat ${names} /workdir/.GIT/config /workdir/.SSH/key; grep -r secret /workdir; echo end`);
      assert.match(seen.stdout, /Notes\.txt/);
      assert.doesNotMatch(seen.stdout + seen.stderr, /case-secret/);
      for (const name of [...Object.keys(files), ".GIT", ".SSH"]) assert.ok(!seen.stdout.split("\n").includes(name), `${name} is not listed`);
      assert.match(seen.stderr, /\.ENV: No such file or directory/);
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("a hard link to the config file made on disk inside the mount", () => {
  it("is hidden like the config itself: told by device and inode, whatever its name", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-hardlink-"));
    const dir = path.join(base, "work");
    mkdirSync(path.join(dir, "sub"), { recursive: true });
    const config = path.join(base, "team.json");
    writeFileSync(config, '{"mcpServers":{"x":{"command":"y","env":{"TOKEN":"hardlinked-config-secret-10"}}}}');
    // Names that say nothing of a config: only what the file is on disk does.
    linkSync(config, path.join(dir, "notes-copy.txt"));
    linkSync(config, path.join(dir, "sub", "readme.md"));
    writeFileSync(path.join(dir, "plain.txt"), "visible\n");
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir, env: { AGENT_TOOLS_CONFIG: config } });
      const session = runtime.createSession();
      for (const line of [
        "cat /workdir/notes-copy.txt /workdir/sub/readme.md",
        "grep -r hardlinked-config /workdir",
        "cp /workdir/notes-copy.txt /tmp/a; cat /tmp/a",
        "cd /workdir && mv sub/readme.md r2; cat r2",
        "cd /workdir && cp -r sub /tmp/s; cat /tmp/s/readme.md",
        "cd /workdir && ln notes-copy.txt again; cat again",
        "cd /workdir && tar cf /tmp/w.tar . && tar xf /tmp/w.tar -C /tmp && cat /tmp/notes-copy.txt",
      ]) {
        const run = await layer.exec(session, line);
        assert.doesNotMatch(run.stdout + run.stderr, /hardlinked-config-secret-10/, line);
      }
      const listed = await layer.exec(session, "ls /workdir /workdir/sub; cat /workdir/plain.txt");
      assert.equal(listed.stdout, "/workdir:\nplain.txt\nsub\n\n/workdir/sub:\nvisible\n", "the links are not listed; the other files are");
      const read = await layer.exec(session, "cat /workdir/notes-copy.txt");
      assert.equal(read.exitCode, 1);
      assert.match(read.stderr, /No such file or directory/);
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("a folder holding a hard link to the config, moved or copied inside the mount", () => {
  it("is refused as a folder above the config's path is, at any depth, and nothing is copied", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-hardlink-folder-"));
    const dir = path.join(base, "work");
    mkdirSync(path.join(dir, "sub", "deeper"), { recursive: true });
    const config = path.join(base, "team.json");
    writeFileSync(config, '{"mcpServers":{"x":{"command":"y","env":{"TOKEN":"hardlinked-folder-secret-11"}}}}');
    linkSync(config, path.join(dir, "sub", "deeper", "readme.md"));
    writeFileSync(path.join(dir, "sub", "plain.txt"), "visible\n");
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir, env: { AGENT_TOOLS_CONFIG: config } });
      const session = runtime.createSession();
      for (const [line, op] of [
        ["cd /workdir && cp -r sub s2; cat s2/deeper/readme.md", "copy"],
        ["cd /workdir && mv sub s3; cat s3/deeper/readme.md", "move"],
        ["cd /workdir && mkdir d && cp -r sub d/; cat d/sub/deeper/readme.md", "copy"],
        ["cd /workdir/sub && mv deeper d2; cat d2/readme.md", "move"],
      ] as const) {
        const run = await layer.exec(session, line);
        assert.doesNotMatch(run.stdout + run.stderr, /hardlinked-folder-secret-11/, line);
        assert.match(run.stderr, new RegExp(`refused: this folder holds a file hidden from the sandbox, and a hidden file keeps its path; ${op} the files inside it one by one instead`), line);
      }
      const after = await layer.exec(session, "cd /workdir && ls; ls sub sub/deeper; cat sub/plain.txt");
      assert.equal(after.stdout, "d\nsub\nsub:\ndeeper\nplain.txt\n\nsub/deeper:\nvisible\n", "nothing was copied or moved; the link stays unlisted");
      const oneByOne = await layer.exec(session, "cd /workdir && mkdir s4 && cp sub/plain.txt s4/ && cat s4/plain.txt");
      assert.equal(oneByOne.stdout, "visible\n");
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("a folder holding a symbolic link on disk, moved or copied inside the mount", () => {
  it("is refused naming the link, before anything is copied", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-symlink-folder-"));
    mkdirSync(path.join(dir, "d4", "inner"), { recursive: true });
    writeFileSync(path.join(dir, "d4", "a"), "a\n");
    symlinkSync("/etc/hostname", path.join(dir, "d4", "inner", "hostlink"));
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir, env: {} });
      const session = runtime.createSession();
      const moved = await layer.exec(session, "cd /workdir; echo new > d4/mine.txt; mv d4 e7");
      assert.equal(moved.exitCode, 1);
      assert.equal(moved.stderr, "mv: cannot move 'd4': refused: 'inner/hostlink' in this folder is a symbolic link, and links are not followed inside /workdir; move the other files one by one instead\n");
      const copied = await layer.exec(session, "cd /workdir; cp -r d4 e4");
      assert.equal(copied.stderr, "cp: cannot copy 'd4': refused: 'inner/hostlink' in this folder is a symbolic link, and links are not followed inside /workdir; copy the other files one by one instead\n");
      const after = await layer.exec(session, "cd /workdir; ls; ls d4");
      assert.equal(after.stdout, "d4\na\ninner\nmine.txt\n", "no half-made e7 or e4; d4 is whole");
      const plain = await layer.exec(session, "cd /workdir; mkdir -p f/g && echo x > f/g/y && cp -r f f2 && mv f2 f3 && cat f3/g/y");
      assert.equal(plain.stdout, "x\n", "a folder with no link is copied and moved as before");
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("a hidden file in a subfolder of the mount", () => {
  it("stays hidden when its folder, or a folder above it, is moved, copied or linked", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-moved-"));
    mkdirSync(path.join(dir, "outer", "conf"), { recursive: true });
    writeFileSync(path.join(dir, "outer", "conf", "team.json"), '{"mcpServers":{"x":{"command":"y","env":{"TOKEN":"moved-config-secret-8"}}}}');
    writeFileSync(path.join(dir, "outer", "conf", "notes.txt"), "visible\n");
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir, env: { AGENT_TOOLS_CONFIG: path.join(dir, "outer", "conf", "team.json") } });
      const session = runtime.createSession();
      const attempts = [
        "cd /workdir/outer && mv conf c2; cat c2/team.json",
        "cd /workdir && mv outer o2; cat o2/conf/team.json",
        "cd /workdir && mv ./outer/../outer o3; cat o3/conf/team.json",
        "cd /workdir/outer && cp -r conf c3; cat c3/team.json",
        "cd /workdir && cp -r outer o4; cat o4/conf/team.json",
        "cd /workdir/outer && ln -s conf c4; cat c4/team.json",
        "ln -s /workdir/outer/conf ~/c5; cat ~/c5/team.json",
        "cd /workdir/outer && cp -r conf /tmp/c6; cat /tmp/c6/team.json",
        "cd /workdir/outer && tar cf /tmp/a.tar conf && tar xf /tmp/a.tar -C /tmp && cat /tmp/conf/team.json",
        "cd /workdir/outer/conf && ln team.json hard; cat hard",
        "grep -r moved-config /workdir /tmp ~",
      ];
      for (const line of attempts) {
        const run = await layer.exec(session, line);
        assert.doesNotMatch(run.stdout + run.stderr, /moved-config-secret-8/, line);
      }
      const moved = await layer.exec(session, "cd /workdir/outer && mv conf c2");
      assert.equal(moved.exitCode, 1);
      assert.match(moved.stderr, /mv: cannot move 'conf': refused: this folder holds a file hidden from the sandbox.*move the files inside it one by one/);
      const copied = await layer.exec(session, "cd /workdir/outer && cp -r conf c7");
      assert.match(copied.stderr, /refused: this folder holds a file hidden from the sandbox.*copy the files inside it one by one/);
      const oneByOne = await layer.exec(session, "cd /workdir/outer && mkdir c8 && cp conf/* c8/ ; ls c8; cat c8/notes.txt");
      assert.equal(oneByOne.stdout, "notes.txt\nvisible\n", "the folder's other files can still be copied");
      const link = await layer.exec(session, "cd /workdir && ln -s outer/conf/notes.txt n");
      assert.equal(link.stderr, "ln: symbolic links cannot be made inside the /workdir mount (so that none leads out of it); make the link in $HOME, or copy the file\n");
      assert.equal(readdirSync(path.join(dir, "outer", "conf")).sort().join(","), "notes.txt,team.json", "the real folder is untouched");
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("MCP client configs in the mount (.mcp.json, .cursor/mcp.json, .codex/config.toml…)", () => {
  it("are hidden, stay hidden when their client's folder is moved or copied, and the folders' other files show", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-clients-"));
    const configs = [".mcp.json", ".cursor/mcp.json", ".VSCode/mcp.json", ".codex/config.toml", ".claude/settings.json", ".gemini/settings.json", "claude_desktop_config.json"];
    for (const file of configs) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), '{"mcpServers":{"gh":{"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"ghp_client-config-secret-9"}}}}');
    }
    writeFileSync(path.join(dir, ".cursor", "rules.md"), "visible\n");
    mkdirSync(path.join(dir, "deep", ".cursor"), { recursive: true });
    writeFileSync(path.join(dir, "deep", ".cursor", "mcp.json"), '{"token":"ghp_client-config-secret-9"}');
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir });
      const session = runtime.createSession();
      const attempts = [
        ...configs.map((file) => `cat /workdir/${file}`),
        "cat /workdir/.cursor/./mcp.json /workdir/.cursor/x/../mcp.json",
        "cd /workdir && mv .cursor c2; cat c2/mcp.json",
        "cd /workdir && cp -r .vscode v2; cat v2/mcp.json",
        "cd /workdir && cp -r deep d2; cat d2/.cursor/mcp.json",
        "grep -r client-config /workdir",
      ];
      for (const line of attempts) {
        const run = await layer.exec(session, line);
        assert.doesNotMatch(run.stdout + run.stderr, /client-config-secret-9/, line);
      }
      const listing = await layer.exec(session, "cd /workdir && find . -type f | sort");
      assert.equal(listing.stdout, "./.cursor/rules.md\n", listing.stderr);
      const moved = await layer.exec(session, "cd /workdir && mv .cursor c3");
      assert.match(moved.stderr, /refused: this folder holds a file hidden from the sandbox.*move the files inside it one by one/);
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });

  it("are hidden when the client's folder is itself the folder mounted (a mount of ~/.cursor hides its mcp.json)", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-client-root-")), ".cursor");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "mcp.json"), '{"token":"ghp_client-root-secret-7"}');
    writeFileSync(path.join(dir, "rules.md"), "visible\n");
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir });
      const session = runtime.createSession();
      for (const line of ["cat /workdir/mcp.json", "cd /workdir && cat ./mcp.json x/../mcp.json", "grep -r client-root /workdir", "cd /workdir && cp -r . /tmp/all; cat /tmp/all/mcp.json"]) {
        const run = await layer.exec(session, line);
        assert.doesNotMatch(run.stdout + run.stderr, /client-root-secret-7/, line);
      }
      const listing = await layer.exec(session, "ls -a /workdir");
      assert.doesNotMatch(listing.stdout, /mcp\.json/, listing.stdout);
      assert.match(listing.stdout, /rules\.md/, "the folder's other files show");
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });

  it("are not made by renaming a plain folder to a client's (the filesystem plugin's rule): the move is refused, naming the file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-plant-"));
    const runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    try {
      const layer = createTextLayer(runtime, { mountDir: dir });
      const session = runtime.createSession();
      const moved = await layer.exec(session, "cd /workdir && mkdir -p stage/sub && echo '{}' > stage/settings.json && echo kept > stage/sub/notes.md && mv stage .claude");
      assert.equal(moved.exitCode, 1);
      assert.equal(moved.stderr, "mv: cannot move 'stage': refused: 'settings.json' in this folder would be hidden at its new path (a name that commonly holds credentials or a client's settings), where nothing is written; move the folder under another name\n");
      const copied = await layer.exec(session, "cd /workdir && cp -r stage .claude");
      assert.match(copied.stderr, /cp: cannot copy 'stage': refused: 'settings\.json' in this folder would be hidden at its new path .*; copy the folder under another name/);
      const after = await layer.exec(session, "cd /workdir && ls -a && cat stage/settings.json && mv stage elsewhere && cat elsewhere/sub/notes.md");
      assert.equal(after.stdout, ".\n..\nstage\n{}\nkept\n", "nothing moved until the name was one that hides nothing");
      await closeSession(session);
    } finally {
      await runtime.close();
    }
  });
});

describe("a config file named through a symlink (the built CLI, AGENT_TOOLS_EXEC_MOUNT_CWD=1)", () => {
  const CLI = fileURLToPath(new URL("../dist/bin/agent-tools.js", import.meta.url));
  // proj/conf/team.json is the config; projlink → proj; inside proj, cfglink → conf and filelink → conf/team.json.
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-workdir-symlinked-")));
  const proj = path.join(base, "proj");
  const link = path.join(base, "projlink");
  mkdirSync(path.join(proj, "conf"), { recursive: true });
  mkdirSync(path.join(base, "noplugins"));
  writeFileSync(path.join(proj, "conf", "team.json"), '{"secretish":"symlinked-config-secret-9"}');
  writeFileSync(path.join(proj, "conf", "notes.txt"), "visible\n");
  symlinkSync("proj", link);
  symlinkSync("conf", path.join(proj, "cfglink"));
  symlinkSync("conf/team.json", path.join(proj, "filelink"));

  const exec = (cwd: string, config: string, line: string): Promise<{ stdout: string; stderr: string; exitCode: number }> =>
    new Promise((resolve, reject) => {
      const env = { PATH: process.env.PATH ?? "", HOME: base, XDG_CACHE_HOME: path.join(base, "cache"), AGENT_TOOLS_PLUGINS_DIR: path.join(base, "noplugins"), AGENT_TOOLS_EXEC_MOUNT_CWD: "1", AGENT_TOOLS_CONFIG: config };
      execFile(process.execPath, [CLI, "exec", line], { cwd, env, timeout: 60_000 }, (error, stdout) => {
        try {
          resolve(JSON.parse(stdout) as { stdout: string; stderr: string; exitCode: number });
        } catch {
          reject(error ?? new Error(`not JSON: ${stdout}`));
        }
      });
    });
  const reads = "cat /workdir/conf/team.json; cat /workdir/cfglink/team.json; cat /workdir/filelink; grep -r symlinked-config /workdir; ls /workdir/conf; cat /workdir/conf/notes.txt";

  for (const [name, cwd, config] of [
    ["the setting spells the path through a symlink to the working directory", proj, path.join(link, "conf", "team.json")],
    ["the working directory was entered through the symlink, the setting relative", link, "conf/team.json"],
    ["the working directory was entered through the symlink, the setting spelled through it", link, path.join(link, "conf", "team.json")],
    ["the setting spells the real path (symlinks inside the mount are not followed)", proj, path.join(proj, "conf", "team.json")],
  ] as const) {
    it(`hides it when ${name}`, async () => {
      const run = await exec(cwd, config, reads);
      assert.doesNotMatch(run.stdout + run.stderr, /symlinked-config-secret-9/, `${cwd} ${config}`);
      assert.match(run.stderr, /cat: \/workdir\/conf\/team\.json: No such file or directory/);
      assert.equal(run.stdout, "notes.txt\nvisible\n", "the folder's other file is there");
    });
  }
});
