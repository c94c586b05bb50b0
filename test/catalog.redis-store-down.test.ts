import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Logger } from "../src/adapters/types.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createRedisState } from "../src/state/redis.js";
import type { SharedState } from "../src/state/types.js";
import { PLUGINS } from "./helpers.js";
import { servicesMissing, startRedis, type RunningService } from "./services-kit.js";
import { until } from "./wait.js";

/**
 * A gateway keeps its catalogs in Redis. When Redis cannot take one (an outage), the warning said
 * "Set AGENT_TOOLS_CACHE_DIR to a folder this user can write…", the folder store's remedy, which
 * does nothing for Redis: it now says what the failed write costs the fleet and to check Redis. A
 * real redis-server, stopped before the plugin's first listing; the runtime in this process.
 */

describe("catalog cache in Redis: a write refused during an outage", { skip: servicesMissing(["redis"]) }, () => {
  let redis: RunningService & { url: string };
  let state: SharedState;
  let runtime: Runtime;
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error: (message: string) => void warnings.push(message) };

  before(async () => {
    redis = await startRedis();
    state = await createRedisState({ url: redis.url, log, instanceId: "gw-catalog", audit: false });
    assert.ok(state.catalogs, "the Redis state has a catalog store");
    await redis.stop();
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], env: {}, log, state, catalogCache: state.catalogs });
  });
  after(async () => {
    await runtime?.close();
    await state?.close().catch(() => undefined);
  });

  it("is said once, for Redis: what the other instances and the next start lose, and to check Redis, not AGENT_TOOLS_CACHE_DIR", async () => {
    const listed = await runtime.discover(runtime.createSession(), "notes", {});
    assert.equal(listed.isError ?? false, false, JSON.stringify(listed));
    await until(() => warnings.some((w) => w.includes("catalog cache: could not store")), "the store's warning");
    const said = warnings.filter((w) => w.includes("catalog cache: could not store"));
    assert.equal(said.length, 1, said.join("\n"));
    assert.match(said[0]!, /could not store 'notes' in redis agent-tools:catalog:\* at redis:\/\/127\.0\.0\.1:\d+: .*; the other instances of the gateway and the next start cannot reuse this listing, so they list the server again; it is stored again at its next listing once Redis answers \(check that redis-server runs and takes writes: AGENT_TOOLS_REDIS_URL or team\.redis\), or set AGENT_TOOLS_CATALOG_CACHE=off/);
    assert.doesNotMatch(said[0]!, /AGENT_TOOLS_CACHE_DIR|folder/);
  });
});
