import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { replaceFile, replaceFileSync } from "../src/replace-file.js";

// The one temp-file-and-rename write of the catalog cache, the OAuth token store and the
// embeddings cache files: the file replaced whole, with its mode, and no temporary left behind.

describe("replaceFile / replaceFileSync", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "replace-file-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("replaces a file whole with the mode asked for, in a folder it makes, and leaves no temporary", async () => {
    const file = path.join(dir, "made", "tokens.json");
    await replaceFile(file, "first", { mode: 0o600, dirMode: 0o700, durable: true });
    await replaceFile(file, "second", { mode: 0o600, durable: true });
    assert.equal(readFileSync(file, "utf8"), "second");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    replaceFileSync(file, Buffer.from("third"), { mode: 0o600 });
    assert.equal(readFileSync(file, "utf8"), "third");
    assert.deepEqual(readdirSync(path.dirname(file)), ["tokens.json"]);
  });

  it("writes at once from many writers without one's temporary meeting another's", async () => {
    const file = path.join(dir, "shared.json");
    await Promise.all(Array.from({ length: 20 }, (_, i) => replaceFile(file, `writer ${i}`)));
    assert.match(readFileSync(file, "utf8"), /^writer \d+$/);
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith(".tmp")), []);
  });

  it("removes its temporary when the rename fails (the target is a folder), async and sync", async () => {
    const target = path.join(dir, "a-folder");
    mkdirSync(path.join(target, "inside"), { recursive: true });
    await assert.rejects(replaceFile(target, "x"));
    assert.throws(() => replaceFileSync(target, "x"));
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith(".tmp")), []);
  });

  it("a fixed temporary is made anew: a FIFO left at its path is not written through (the write would wait for a reader)", async () => {
    const file = path.join(dir, "store.json");
    const temp = path.join(dir, ".store.json.next");
    execFileSync("mkfifo", [temp]);
    await replaceFile(file, "safe", { temp, mode: 0o600 });
    assert.equal(readFileSync(file, "utf8"), "safe");
    assert.ok(!readdirSync(dir).includes(".store.json.next"));
    writeFileSync(temp, "stale");
    replaceFileSync(file, "again", { temp });
    assert.equal(readFileSync(file, "utf8"), "again");
  });
});
