import type { Client } from "@modelcontextprotocol/client";

type Flow = Parameters<Client["_resolveNonCompleteResult"]>[1];

/**
 * The flow of a 2026-07-28 server's input_required answer, without the SDK driver's own progress.
 * The driver reports "Fulfilling input required by '<method>' (round N)" on the request's
 * `onprogress` at the start of every round: its bookkeeping, not the server's progress, and a
 * step back after the server's own (progress must only increase). That callback relays the
 * server's progress to the agent's client, so the driver is handed options without it; each
 * retry leg gets it back, so the server's progress during the rounds after an answer still
 * reaches the agent. Exact, where matching the message text would also drop a server's step
 * that happened to read the same.
 */
export function withoutRoundProgress(flow: Flow): Flow {
  if (!flow.options?.onprogress) return flow;
  const { onprogress, ...options } = flow.options;
  return { ...flow, options, retry: (params, legOptions) => flow.retry(params, { ...legOptions, onprogress }) };
}
