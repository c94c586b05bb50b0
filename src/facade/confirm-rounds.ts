import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, type ClientCapabilities, inputRequired, inputResponse, type InputRequiredResult, type RequestStateCodec, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { elicitationModes } from "../adapters/relay.js";
import { nodeCrypto } from "../node-crypto.js";
import { ConfirmInterrupt, questionDigest, renderQuestion, type ConfirmDecision, type Confirmer, type ConfirmQuestion } from "../runtime/confirm.js";

/**
 * The user confirms writes through MCP elicitation, written once in the 2026-07-28 style: the
 * gate's question goes back as an `input_required` result with a form, and the client sends the
 * call again with the user's answer. A 2025-era connection is asked by the facade itself with a
 * real `elicitation/create` while the call waits (ask-confirm.ts), with a deadline and the
 * facade's own error when the question fails; the SDK's legacy shim would wait 10 minutes and
 * answer its own text.
 *
 * What the client echoes (`requestState`) is signed with the runtime's key and bound to the
 * caller's identity, and names the exact call it approves (a digest of plugin, tool, arguments,
 * skill): an accept cannot be moved to other arguments. Each state is good for one run: its nonce
 * is spent when the retry carrying the accept arrives, before anything runs, so a replayed retry,
 * or one sent twice at once, asks the user again rather than running the write a second time.
 */

interface ConfirmState {
  /** Questions the user accepted in earlier rounds of this call (skills may ask several). */
  approved: string[];
  /** The question the inputResponses of this round answer. */
  pending: string;
  nonce: string;
  /** Set when this state resumes a call held open for a downstream question (held-calls.ts): its id and the round answered. */
  held?: { id: string; round: number };
}

const FORM_KEY = "confirm";
const TTL_SECONDS = 600;
const MAX_SPENT = 10_000;

/**
 * What the client declared it can do: per request in the 2026-07-28 era (the envelope; serveStdio
 * leaves the connection-level accessor empty there), from initialize in the 2025 era.
 */
export function clientCapabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}

/** Whether the client declared form elicitation (a bare `elicitation: {}` counts as form, its pre-mode meaning). */
export function clientCanElicitForm(server: Server, ctx: ServerContext): boolean {
  return elicitationModes(clientCapabilitiesOf(server, ctx)?.elicitation)?.form === true;
}

type ConfirmSchema = { type: "object"; properties: Record<string, { type: "boolean"; title: string; description: string; default: boolean }>; required: string[] };

/**
 * The schema of every confirmation form: one object, so the form validator can tell a
 * confirmation's answer from a relayed question's (it leaves the confirmation's to decisionOf).
 */
export const CONFIRM_SCHEMA: Readonly<ConfirmSchema> = Object.freeze<ConfirmSchema>({
  type: "object",
  properties: { [FORM_KEY]: { type: "boolean", title: "Run it", description: "Tick to let this change run once; decline to stop it.", default: true } },
  required: [FORM_KEY],
});

/** The form that asks the user to confirm one write (both the input_required round and a question asked mid-call use it). */
export function confirmForm(question: ConfirmQuestion): { message: string; requestedSchema: ConfirmSchema } {
  return { message: renderQuestion(question), requestedSchema: CONFIRM_SCHEMA as ConfirmSchema };
}

/**
 * The user's decision from a form answer, failing closed: only an accept whose `confirm` is the
 * boolean true is a yes. An accept with anything else there (unticked, missing, "false", 0, "yes
 * please", no content) is "unconfirmed", and an action that is none of the three is a cancel.
 */
export function decisionOf(action: unknown, content: Record<string, unknown> | undefined): ConfirmDecision {
  if (action === "accept") return content?.[FORM_KEY] === true ? "accept" : "unconfirmed";
  return action === "decline" ? "decline" : "cancel";
}

export interface ConfirmRound {
  confirmer: Confirmer;
  /** The input_required answer that asks the user the interrupted question. */
  ask(interrupt: ConfirmInterrupt): Promise<InputRequiredResult>;
}

export class ConfirmRounds {
  private made: RequestStateCodec<ConfirmState> | undefined;
  private readonly spent = new Map<string, number>();

  /**
   * `key` is read on the first confirmation round, not at start: the codec signs with Web Crypto and
   * a random process key comes from node:crypto, neither of which a start should load (node-crypto.ts).
   */
  constructor(private readonly key: () => Uint8Array) {}

  private get codec(): RequestStateCodec<ConfirmState> {
    this.made ??= createRequestStateCodec<ConfirmState>({ key: this.key(), ttlSeconds: TTL_SECONDS, bind: (ctx) => identityOf(ctx) });
    return this.made;
  }

  /** `ServerOptions.requestState.verify`: a forged, expired or other caller's state is refused by the SDK (-32602). */
  readonly verify = (state: string, ctx: ServerContext): Promise<ConfirmState> => this.codec.verify(state, ctx);

  round(ctx: ServerContext): ConfirmRound {
    const echoed = ctx.mcpReq.requestState<ConfirmState>();
    const state = echoed && typeof echoed === "object" && !echoed.held && !this.spent.has(echoed.nonce) ? echoed : undefined;
    const approved = new Set(state?.approved ?? []);
    const answered = new Map<string, ConfirmDecision>();
    if (state) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, FORM_KEY);
      if (answer.kind === "elicit") {
        const decision = decisionOf(answer.action, answer.content);
        if (decision === "accept") {
          // Claimed now, in the same turn as the check above, not after the run: a duplicate of this
          // retry arriving while the approved call runs finds the nonce spent and is asked again.
          // One approval is one run, even when that run fails before it writes.
          this.spend(state.nonce);
          approved.add(state.pending);
        } else answered.set(state.pending, decision);
      }
    }
    return {
      confirmer: async (question) => {
        const digest = questionDigest(question);
        if (approved.has(digest)) return "accept";
        const decision = answered.get(digest);
        if (decision) return decision;
        throw new ConfirmInterrupt(question);
      },
      ask: async (interrupt) => {
        const requestState = await this.codec.mint({ approved: [...approved], pending: questionDigest(interrupt.question), nonce: nodeCrypto().randomUUID() }, ctx);
        return inputRequired({
          inputRequests: {
            [FORM_KEY]: inputRequired.elicit(confirmForm(interrupt.question)),
          },
          requestState,
        });
      },
    };
  }

  /** The held call a retried request resumes, when its requestState names one. */
  heldOf(ctx: ServerContext): { id: string; round: number } | undefined {
    const echoed = ctx.mcpReq.requestState<ConfirmState>();
    return echoed && typeof echoed === "object" && echoed.held ? echoed.held : undefined;
  }

  /** The requestState of a round that asks a held call's downstream questions (signed and bound like a confirmation's). */
  mintHeld(ctx: ServerContext, held: { id: string; round: number }): Promise<string> {
    return this.codec.mint({ approved: [], pending: "", nonce: nodeCrypto().randomUUID(), held }, ctx);
  }

  private spend(nonce: string): void {
    const now = Date.now();
    this.spent.set(nonce, now);
    if (this.spent.size > MAX_SPENT) {
      // States expire after TTL_SECONDS anyway: forget spent nonces older than that.
      for (const [key, at] of this.spent) if (now - at > TTL_SECONDS * 1000 || this.spent.size > MAX_SPENT) this.spent.delete(key);
    }
  }
}

/** The caller's identity as the transport verified it ("" without one). */
export function identityOf(ctx: ServerContext): string {
  return ctx.http?.authInfo?.clientId ?? "";
}
