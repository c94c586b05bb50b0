import type { Logger } from "../adapters/types.js";
import type { TeamConfig } from "../config/team.js";
import path from "node:path";
import { isOffValue, switchWord } from "../env-switch.js";
import { auditFileProblem, auditFileSize, AUDIT_KEPT_FILES, createFileAuditLog, DEFAULT_AUDIT_MAX_BYTES, defaultAuditFile, tightenAuditFileMode } from "./audit-file.js";
import { positiveInt } from "../positive-int.js";
import { createMemoryState } from "./memory.js";
import { checkRedisUrl, StateSettingError } from "./redis-url.js";
import { instanceIdProblem, SharedStateError, type SharedState } from "./types.js";

export type { AuditEntry, AuditLog, Counters, JobRecords, KeyValue, Locks, SharedState, StoredJob, WindowCount } from "./types.js";
export { SharedStateError } from "./types.js";
export { createMemoryState } from "./memory.js";
export { DEFAULT_AUDIT_MAX_BYTES, defaultAuditFile } from "./audit-file.js";

/** The part of the config's `team` block (config/team.ts, checked with the config file) this module reads. */
export type StateSettings = Pick<TeamConfig, "redis" | "redisPrefix" | "audit" | "auditMaxBytes" | "heartbeatTtlMs">;

/**
 * The audit setting (AGENT_TOOLS_AUDIT, else team.audit): "off" when a switch word says off (off,
 * 0, false, no, disabled, any case: the words every switch takes, env-switch.ts), undefined for
 * the default place when unset or a switch word says on (on, 1, true, yes, enabled), else a file.
 */
function auditSetting(env: NodeJS.ProcessEnv, settings: StateSettings): string | undefined {
  const value = env.AGENT_TOOLS_AUDIT?.trim() || settings.audit;
  const on = switchWord(value);
  if (on === false) return "off";
  // On means the default place: the Redis stream, else the default JSONL file.
  return on ? undefined : value || undefined;
}

/**
 * The audit file's size bound (audit-file.ts): AGENT_TOOLS_AUDIT_MAX_BYTES (a switch word for off
 * means no rotation of its own), else team.auditMaxBytes (0: none), else 10 MiB. A value the
 * variable cannot take is said by the start check (env-settings.ts); the default applies.
 */
export function auditMaxBytes(env: NodeJS.ProcessEnv, settings: StateSettings = {}): number | undefined {
  const raw = env.AGENT_TOOLS_AUDIT_MAX_BYTES?.trim();
  if (raw) {
    if (isOffValue(raw)) return undefined;
    const bytes = positiveInt(raw);
    if (bytes !== undefined) return bytes;
  }
  if (settings.auditMaxBytes !== undefined) return settings.auditMaxBytes === 0 ? undefined : settings.auditMaxBytes;
  return DEFAULT_AUDIT_MAX_BYTES;
}

/**
 * With Redis the audit log is the Redis stream: a file named for it (AGENT_TOOLS_AUDIT_FILE, or a
 * path in AGENT_TOOLS_AUDIT / team.audit) is not written. Said at start, naming the setting, so an
 * operator does not look for entries in a file that never gets any.
 */
function auditFileUnused(env: NodeJS.ProcessEnv, settings: StateSettings, audit: string | undefined, redisSetting: string): string | undefined {
  if (audit === "off") return undefined;
  const file = env.AGENT_TOOLS_AUDIT_FILE?.trim();
  const named = audit !== undefined ? [env.AGENT_TOOLS_AUDIT?.trim() ? "AGENT_TOOLS_AUDIT" : "team.audit", audit] : file ? ["AGENT_TOOLS_AUDIT_FILE", file] : undefined;
  if (!named) return undefined;
  const stream = `${settings.redisPrefix ?? "agent-tools:"}audit`;
  return `${named[0]} names the file ${named[1]}, but with Redis (${redisSetting}) the audit log is the Redis stream '${stream}', and that file is not written; read the log with \`agent-tools audit\`, and unset ${named[0]} (or set AGENT_TOOLS_AUDIT=off for no audit log at all)`;
}

/**
 * The shared state this process uses: Redis when a URL is set (env or config), else memory.
 * The audit log goes to the Redis stream with Redis, else to a JSONL file; `AGENT_TOOLS_AUDIT=off`
 * (or team.audit "off") turns it off.
 */
export async function createSharedState(options: { env: NodeJS.ProcessEnv; log: Logger; settings?: StateSettings; instanceId?: string }): Promise<SharedState> {
  const settings = options.settings ?? {};
  // An operator may name instances (a pod or host name) so heartbeats, job owners and audit lines read well.
  const named = options.instanceId ?? (options.env.AGENT_TOOLS_INSTANCE_ID?.trim() || undefined);
  if (named) {
    const problem = instanceIdProblem(named);
    if (problem) throw new StateSettingError(problem);
    options = { ...options, instanceId: named };
  }
  const fromEnv = options.env.AGENT_TOOLS_REDIS_URL?.trim();
  const url = fromEnv || settings.redis;
  const audit = auditSetting(options.env, settings);
  const auditOff = audit === "off";
  if (url) {
    const setting = fromEnv ? "AGENT_TOOLS_REDIS_URL" : "team.redis in the config file";
    checkRedisUrl(url, setting);
    const unusedFile = auditFileUnused(options.env, settings, audit, setting);
    if (unusedFile) options.log.warn(unusedFile);
    // Loaded only for a Redis URL: ioredis is a tenth of a second of a start that does not use it.
    const { createRedisState } = await import("./redis.js");
    return createRedisState({
      url,
      setting,
      log: options.log,
      audit: !auditOff,
      ...(settings.redisPrefix ? { prefix: settings.redisPrefix } : {}),
      ...(settings.heartbeatTtlMs ? { heartbeatTtlMs: settings.heartbeatTtlMs } : {}),
      ...(options.instanceId ? { instanceId: options.instanceId } : {}),
    });
  }
  const file = audit && !auditOff ? path.resolve(audit) : defaultAuditFile(options.env);
  if (!auditOff) {
    const source = audit ? (options.env.AGENT_TOOLS_AUDIT?.trim() ? "AGENT_TOOLS_AUDIT" : "team.audit") : options.env.AGENT_TOOLS_AUDIT_FILE?.trim() ? "AGENT_TOOLS_AUDIT_FILE" : "AGENT_TOOLS_AUDIT_FILE (unset: the default place)";
    const problem = auditFileProblem(file, source, audit ?? options.env.AGENT_TOOLS_AUDIT_FILE?.trim());
    if (problem) throw new StateSettingError(problem);
    const tightened = tightenAuditFileMode(file);
    if (tightened.refused) throw new StateSettingError(tightened.refused);
    if (tightened.warning) options.log.warn(tightened.warning);
  }
  const maxBytes = auditOff ? undefined : auditMaxBytes(options.env, settings);
  if (!auditOff) options.log.debug(`audit log: ${file} (${auditFileSize(file)}; ${maxBytes === undefined ? "not rotated by agent-tools" : `rotated at ${maxBytes} bytes, keeping ${AUDIT_KEPT_FILES} older files`})`);
  return createMemoryState({
    ...(auditOff ? {} : { audit: createFileAuditLog(file, { log: options.log, ...(maxBytes !== undefined ? { maxBytes } : {}) }) }),
    ...(options.instanceId ? { instanceId: options.instanceId } : {}),
  });
}

/**
 * The shared state, or, for the commands that report rather than serve (validate, status, exec),
 * what would stop a server's start as a problem: a setting (StateSettingError: a bad Redis URL, an
 * audit log that cannot be written) or a Redis that cannot be reached (SharedStateError of the
 * first connection), with memory state and no audit log in its place: their answer is still their
 * JSON, listing it. An unreachable Redis printed only a line on stderr.
 */
export async function sharedStateOrProblem(options: Parameters<typeof createSharedState>[0]): Promise<{ state: SharedState; problem?: string }> {
  try {
    return { state: await createSharedState(options) };
  } catch (error) {
    if (!(error instanceof StateSettingError) && !(error instanceof SharedStateError)) throw error;
    return { state: createMemoryState(options.instanceId ? { instanceId: options.instanceId } : {}), problem: error.message };
  }
}
