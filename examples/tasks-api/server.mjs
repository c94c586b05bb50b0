#!/usr/bin/env node
/**
 * A small self-hosted tasks API: the reference backend of the bundled `tasks` plugin.
 *
 *   TASKS_API_KEY=change-me node examples/tasks-api/server.mjs
 *
 * JSON over HTTP, every request authenticated with an `x-api-key` header. Tasks live in a SQLite
 * database (sql.js: SQLite compiled to WebAssembly, so no native build) that is written to
 * TASKS_DB_FILE after every change — to a temporary file first, then renamed over the old one,
 * so a crash never leaves half a database behind. Temporary copies a killed server left are removed
 * at start.
 *
 * Writes (POST, PATCH, DELETE) honour an `Idempotency-Key` header: the key and the answer are
 * stored in the same database write as the change, so a client that retries a write whose answer
 * it never got (the server was killed after the commit) gets the first answer again, with
 * `Idempotent-Replayed: true`, instead of a second task. A key sent again with a different request
 * is refused (422 idempotency_key_reused). Keys are kept 24 hours.
 *
 * Environment: TASKS_API_KEY (required), TASKS_DB_FILE (default ./tasks.sqlite),
 * TASKS_PORT (default 4010; 0 picks a free port), TASKS_HOST (default 127.0.0.1).
 * Once listening it prints one line to stdout: `tasks-api listening on http://HOST:PORT`.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Buffer } from "node:buffer";
import initSqlJs from "sql.js";

const STATUSES = ["todo", "doing", "done"];
const FIELDS = ["title", "description", "status", "due"];
/** Accepted in bodies besides FIELDS: the original tasks plugin's boolean (true is status done). */
const DONE = "done";
const MAX_BODY_BYTES = 64 * 1024;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 4000;
const MAX_LIST = 500;
const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;
const MAX_IDEMPOTENCY_KEY = 200;

/** A client error answered as `{ error: message, code, field? }`. */
class HttpError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

// ---- storage ---------------------------------------------------------------------------------

/** `<db>.<pid>.<uuid>.tmp` files are persist()'s temporaries: one left behind means a server died mid-write. */
function removeStaleTemporaries(file) {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) {
      try {
        unlinkSync(path.join(dir, name));
        console.error(`tasks-api: removed ${name}, a temporary copy left by a server that was stopped mid-write`);
      } catch {
        // gone already
      }
    }
  }
}

async function openStore(file) {
  removeStaleTemporaries(file);
  const SQL = await initSqlJs();
  const db = existsSync(file) ? new SQL.Database(readFileSync(file)) : new SQL.Database();
  db.run(`CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'todo',
    due TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`);
  db.run(`CREATE TABLE IF NOT EXISTS idempotency_keys (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
  )`);

  /** Write the whole database next to the target, flush it, then rename: atomic on one filesystem. */
  function persist() {
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
    writeFileSync(temporary, db.export());
    const fd = openSync(temporary, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  }
  if (!existsSync(file)) persist();

  // Inside batch(), changes are written once at its end, together with the idempotency record.
  let batching = false;
  const changed = () => {
    if (!batching) persist();
  };

  const rows = (sql, params = []) => {
    const statement = db.prepare(sql);
    try {
      statement.bind(params);
      const out = [];
      while (statement.step()) out.push(toTask(statement.getAsObject()));
      return out;
    } finally {
      statement.free();
    }
  };

  return {
    list({ q, status, limit }) {
      const where = [];
      const params = [];
      if (q) {
        // LIKE with our own escape character, so '%' and '_' in the text are literal.
        const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        where.push("(title LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')");
        params.push(pattern, pattern);
      }
      if (status) {
        where.push("status = ?");
        params.push(status);
      }
      params.push(limit);
      return rows(`SELECT * FROM tasks ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id LIMIT ?`, params);
    },
    get(id) {
      return rows("SELECT * FROM tasks WHERE id = ?", [id])[0];
    },
    create(fields) {
      const now = new Date().toISOString();
      db.run("INSERT INTO tasks (title, description, status, due, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", [
        fields.title,
        fields.description ?? "",
        fields.status ?? "todo",
        fields.due ?? null,
        now,
        now,
      ]);
      const id = db.exec("SELECT last_insert_rowid()")[0].values[0][0];
      changed();
      return this.get(id);
    },
    update(id, fields) {
      const names = Object.keys(fields);
      const sets = names.map((name) => `${name} = ?`);
      const values = names.map((name) => (name === "description" ? (fields[name] ?? "") : fields[name]));
      db.run(`UPDATE tasks SET ${[...sets, "updated_at = ?"].join(", ")} WHERE id = ?`, [...values, new Date().toISOString(), id]);
      changed();
      return this.get(id);
    },
    remove(id) {
      db.run("DELETE FROM tasks WHERE id = ?", [id]);
      changed();
    },
    /** The answer stored under an idempotency key, if any (expired keys are not answered). */
    replay(key) {
      const statement = db.prepare("SELECT fingerprint, status, body FROM idempotency_keys WHERE key = ? AND created_at >= ?");
      try {
        statement.bind([key, Date.now() - IDEMPOTENCY_KEEP_MS]);
        return statement.step() ? statement.getAsObject() : undefined;
      } finally {
        statement.free();
      }
    },
    /**
     * Run `work` (synchronous: it returns { status, body }) and write its changes once, with the
     * answer stored under `idempotency.key` in the same write. Nothing is written when it throws.
     */
    batch(work, idempotency) {
      batching = true;
      let answer;
      try {
        answer = work();
      } finally {
        batching = false;
      }
      if (idempotency) {
        const now = Date.now();
        db.run("DELETE FROM idempotency_keys WHERE created_at < ?", [now - IDEMPOTENCY_KEEP_MS]);
        db.run("INSERT OR REPLACE INTO idempotency_keys (key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?)", [
          idempotency.key,
          idempotency.fingerprint,
          answer.status,
          JSON.stringify(answer.body),
          now,
        ]);
      }
      persist();
      return answer;
    },
    close() {
      db.close();
    },
  };
}

function toTask(row) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    due: row.due ?? null,
    done: row.status === "done",
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// ---- validation ------------------------------------------------------------------------------

function isRealDate(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** Check a create (all rules, title required) or an update of `existing` (only what is sent). */
function checkFields(body, { creating, existing }) {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new HttpError(400, "bad_request", "the request body must be a JSON object");
  }
  for (const key of Object.keys(body)) {
    if (!FIELDS.includes(key) && key !== DONE) throw new HttpError(422, "unknown_field", `field '${key}' is not a task field (fields: ${FIELDS.join(", ")}, ${DONE})`, key);
  }
  const out = {};
  if (DONE in body) {
    if (typeof body.done !== "boolean") throw new HttpError(422, "invalid_field", "field 'done' must be true or false", DONE);
    // done is the status seen as a yes/no: true is done; false reopens a done task as todo and
    // leaves an open one (todo, doing) as it is.
    if ("status" in body && (body.status === "done") !== body.done) {
      throw new HttpError(422, "invalid_field", `fields 'done' (${body.done}) and 'status' ('${body.status}') disagree; send one of them`, DONE);
    }
    if (!("status" in body)) {
      if (body.done) out.status = "done";
      else if (creating || existing?.status === "done") out.status = "todo";
      else out.status = existing.status;
    }
  }
  if (creating || "title" in body) {
    const { title } = body;
    if (title === undefined) throw new HttpError(422, "invalid_field", "field 'title' is required", "title");
    if (typeof title !== "string" || title.trim() === "") throw new HttpError(422, "invalid_field", "field 'title' must be a non-empty string", "title");
    if (title.length > MAX_TITLE) throw new HttpError(422, "invalid_field", `field 'title' must be at most ${MAX_TITLE} characters`, "title");
    out.title = title;
  }
  if ("description" in body) {
    const { description } = body;
    if (description !== null && typeof description !== "string") throw new HttpError(422, "invalid_field", "field 'description' must be a string", "description");
    if (typeof description === "string" && description.length > MAX_DESCRIPTION) {
      throw new HttpError(422, "invalid_field", `field 'description' must be at most ${MAX_DESCRIPTION} characters`, "description");
    }
    out.description = description ?? "";
  }
  if ("status" in body) {
    if (!STATUSES.includes(body.status)) throw new HttpError(422, "invalid_field", `field 'status' must be one of ${STATUSES.join(", ")}`, "status");
    out.status = body.status;
  }
  if ("due" in body) {
    if (body.due !== null && (typeof body.due !== "string" || !isRealDate(body.due))) {
      throw new HttpError(422, "invalid_field", "field 'due' must be a date YYYY-MM-DD (or null for none)", "due");
    }
    out.due = body.due;
  }
  if (!creating && Object.keys(out).length === 0) {
    throw new HttpError(422, "invalid_field", `an update needs at least one of ${FIELDS.join(", ")}, ${DONE}`);
  }
  return out;
}

function parseId(text) {
  if (!/^[1-9]\d{0,15}$/.test(text)) throw new HttpError(400, "bad_request", `task id '${text}' must be a positive integer`, "id");
  return Number(text);
}

// ---- HTTP ------------------------------------------------------------------------------------

function send(res, status, body, headers = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The request's Idempotency-Key with a fingerprint of the request it came with, or undefined. */
function idempotencyOf(req, pathname, body) {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key.trim() === "" || key.length > MAX_IDEMPOTENCY_KEY) {
    throw new HttpError(400, "bad_request", `header 'Idempotency-Key' must be one non-empty value of at most ${MAX_IDEMPOTENCY_KEY} characters`);
  }
  const fingerprint = createHash("sha256").update(`${req.method} ${pathname}\n${JSON.stringify(body ?? null)}`).digest("hex");
  return { key, fingerprint };
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, "too_large", `the request body is larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") return reject(new HttpError(400, "bad_request", "the request body is empty; send a JSON object"));
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(new HttpError(400, "bad_request", `the request body is not valid JSON: ${error.message}`));
      }
    });
  });
}

function sameSecret(given, expected) {
  const a = Buffer.from(String(given ?? ""));
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function createHandler(store, apiKey) {
  /** Answer a write whose key was seen before from the stored answer; true when it did. */
  const replayed = (req, res, pathname, body) => {
    const idempotency = idempotencyOf(req, pathname, body);
    const prior = idempotency && store.replay(idempotency.key);
    if (!prior) return false;
    if (prior.fingerprint !== idempotency.fingerprint) {
      throw new HttpError(422, "idempotency_key_reused", "this Idempotency-Key was already used with a different request; send a new key for a new request");
    }
    send(res, prior.status, prior.body, { "idempotent-replayed": "true" });
    return true;
  };
  /** A write: replayed when its key was seen, else done and stored with its answer in one database write. */
  const write = (req, res, pathname, body, work) => {
    if (replayed(req, res, pathname, body)) return;
    const answer = store.batch(work, idempotencyOf(req, pathname, body));
    send(res, answer.status, answer.body);
  };
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (!sameSecret(req.headers["x-api-key"], apiKey)) throw new HttpError(401, "unauthorized", "missing or wrong x-api-key header");
      const parts = url.pathname.split("/").filter(Boolean);
      if (parts[0] !== "tasks" || parts.length > 2) throw new HttpError(404, "not_found", `no route ${req.method} ${url.pathname} (routes: /tasks, /tasks/:id)`);
      if (parts.length === 1) {
        if (req.method === "GET") {
          const q = url.searchParams.get("q") ?? "";
          const status = url.searchParams.get("status") ?? "";
          if (status && !STATUSES.includes(status)) throw new HttpError(422, "invalid_field", `query 'status' must be one of ${STATUSES.join(", ")}`, "status");
          const limitText = url.searchParams.get("limit");
          const limit = limitText === null ? 100 : Number(limitText);
          if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) throw new HttpError(422, "invalid_field", `query 'limit' must be an integer from 1 to ${MAX_LIST}`, "limit");
          const tasks = store.list({ q, status, limit });
          return send(res, 200, { tasks, count: tasks.length });
        }
        if (req.method === "POST") {
          const body = await readJson(req);
          const fields = checkFields(body, { creating: true });
          return write(req, res, url.pathname, body, () => ({ status: 201, body: { task: store.create(fields) } }));
        }
        throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on /tasks (GET, POST)`);
      }
      const id = parseId(decodeURIComponent(parts[1]));
      if (!["GET", "PATCH", "DELETE"].includes(req.method ?? "")) throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on /tasks/:id (GET, PATCH, DELETE)`);
      // The body is read before the task is looked up, so a replayed write is answered as it was.
      const body = req.method === "PATCH" ? await readJson(req) : undefined;
      if (req.method !== "GET" && replayed(req, res, url.pathname, body)) return;
      const existing = store.get(id);
      if (!existing) throw new HttpError(404, "not_found", `task ${id} does not exist`, "id");
      if (req.method === "GET") return send(res, 200, { task: existing });
      if (req.method === "PATCH") {
        const fields = checkFields(body, { creating: false, existing });
        return write(req, res, url.pathname, body, () => ({ status: 200, body: { task: store.update(id, fields) } }));
      }
      return write(req, res, url.pathname, undefined, () => {
        store.remove(id);
        return { status: 200, body: { deleted: true, task: existing } };
      });
    } catch (error) {
      // `error` is the message itself, so a client that prints `body.error` shows words.
      if (error instanceof HttpError) return send(res, error.status, { error: error.message, code: error.code, ...(error.field ? { field: error.field } : {}) });
      console.error("tasks-api: internal error:", error);
      return send(res, 500, { error: "internal server error", code: "internal" });
    }
  };
}

async function main() {
  const apiKey = process.env.TASKS_API_KEY;
  if (!apiKey) {
    console.error("tasks-api: set TASKS_API_KEY (the key clients send in the x-api-key header)");
    process.exit(2);
  }
  const file = path.resolve(process.env.TASKS_DB_FILE || "tasks.sqlite");
  const host = process.env.TASKS_HOST || "127.0.0.1";
  const port = Number(process.env.TASKS_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`tasks-api: TASKS_PORT must be a port number 0-65535 (got '${process.env.TASKS_PORT}')`);
    process.exit(2);
  }
  const store = await openStore(file);
  const server = http.createServer(createHandler(store, apiKey));
  server.listen(port, host, () => {
    const address = server.address();
    console.log(`tasks-api listening on http://${host}:${address.port} (database ${file})`);
  });
  const stop = () => server.close(() => {
    store.close();
    process.exit(0);
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

await main();
