import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, type ClientCapabilities, inputRequired, inputResponse, type InputRequiredResult, type RequestStateCodec, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { elicitationModes } from "../adapters/relay.js";
import { nodeCrypto } from "../node-crypto.js";
import { identityOf } from "./caller.js";
import { answersProblem, type AskedQuestion } from "./answers-check.js";
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
 * is spent when the approved write is about to run, so a replayed retry asks the user again. The
 * signing key is the fleet's, so in a team gateway the nonce is spent in the shared state too: a
 * replay sent to another instance asks again instead of running the write once per instance.
 */

/** Where spent nonces are recorded. `claim` is true for the first claim of a nonce only. */
export interface SpentNonces {
  claim(nonce: string, ttlMs: number): Promise<boolean>;
}

interface ConfirmState {
  /** Questions the user accepted in earlier rounds of this call (skills may ask several). */
  approved: string[];
  /** The question the inputResponses of this round answer. */
  pending: string;
  nonce: string;
  /** Set when this state resumes a call held open for a downstream question (held-calls.ts): its id and the round answered. */
  held?: { id: string; round: number };
}

/**
 * What the verify hook hands the handler for a signed state it will not honour but whose reason the
 * client should hear in the facade's words (the SDK answers every throw with one fixed -32602):
 * `expired`, a genuine state past its life (checked after the signature, so never a forged one);
 * `bind`, a genuine state issued to another caller. Forged or malformed ones still throw.
 */
export interface RefusedState {
  refused: "expired" | "bind";
}

type EchoedState = ConfirmState | RefusedState;

const FORM_KEY = "confirm";
/** How long a requestState stays good (a held call waits as long for its answer: HeldCalls' default). */
export const TTL_SECONDS = 600;
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

/** The question of a confirmation round, as answers-check.ts checks its answer. */
const CONFIRM_ASKED: ReadonlyMap<string, AskedQuestion> = new Map([
  [FORM_KEY, { kind: "elicit", shape: `{"action": "accept", "content": {"${FORM_KEY}": true}} to let the change run, or {"action": "decline"} to stop it` }],
]);

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
  /** The request carries the user's answer to this facade's confirmation question (the loop breaker lets it through). */
  answered: boolean;
  /** The input_required answer that asks the user the interrupted question. */
  ask(interrupt: ConfirmInterrupt): Promise<InputRequiredResult>;
}

/** The spent nonces of one process: enough for one instance (a state is signed with its key only). */
class LocalSpentNonces implements SpentNonces {
  private readonly spent = new Map<string, number>();

  has(nonce: string): boolean {
    return this.spent.has(nonce);
  }

  /** Forget a claim whose spend did not happen (the shared store failed). */
  release(nonce: string): void {
    this.spent.delete(nonce);
  }

  async claim(nonce: string, ttlMs: number): Promise<boolean> {
    if (this.spent.has(nonce)) return false;
    const now = Date.now();
    this.spent.set(nonce, now);
    if (this.spent.size > MAX_SPENT) {
      // States expire after their ttl anyway: forget spent nonces older than that.
      for (const [key, at] of this.spent) if (now - at > ttlMs || this.spent.size > MAX_SPENT) this.spent.delete(key);
    }
    return true;
  }
}

export class ConfirmRounds {
  /** One codec per key (a team instance may adopt the fleet's key and still accept its earlier one's states). */
  private readonly codecs = new Map<Uint8Array, RequestStateCodec<ConfirmState>>();
  /** This process's spent nonces: a state spent here is known spent without asking the shared store. */
  private readonly local = new LocalSpentNonces();

  /**
   * `keys` (the current one first, then earlier ones still accepted) are read at each round, not at
   * start: the codec signs with Web Crypto and a random process key comes from node:crypto, neither
   * of which a start should load (node-crypto.ts).
   * `shared` records spent nonces for the fleet (team gateway on Redis), where the key is shared.
   */
  constructor(
    private readonly keys: () => Uint8Array[],
    private readonly shared?: SpentNonces,
  ) {}

  /**
   * Spend `nonce`: true for the first spend only, fleet-wide when there is a shared store. The shared
   * store's failure fails the call, nothing run, and gives the local claim back: the approval is not
   * used up, so the same accept, retried once the store is back, runs the call (an answer "already
   * spent" is kept: that approval was used, here or on another instance).
   */
  private async spend(nonce: string): Promise<boolean> {
    if (!(await this.local.claim(nonce, TTL_SECONDS * 1000))) return false;
    if (!this.shared) return true;
    try {
      return await this.shared.claim(nonce, TTL_SECONDS * 1000);
    } catch (error) {
      this.local.release(nonce);
      throw error;
    }
  }

  private codecOf(key: Uint8Array): RequestStateCodec<ConfirmState> {
    let codec = this.codecs.get(key);
    if (!codec) this.codecs.set(key, (codec = createRequestStateCodec<ConfirmState>({ key, ttlSeconds: TTL_SECONDS, bind: (ctx) => identityOf(ctx) })));
    return codec;
  }

  /** Signs with the current key. */
  private get codec(): RequestStateCodec<ConfirmState> {
    return this.codecOf(this.keys()[0]!);
  }

  /**
   * `ServerOptions.requestState.verify`: a forged or malformed state is refused by the SDK (-32602,
   * its fixed words); an expired or other caller's state reaches the handler as a RefusedState, which
   * the facade answers in its own words before anything runs (server.ts). A state signed with an earlier key of this process still verifies
   * (only a signature mismatch tries the next key: an expired or other caller's state is refused as such).
   */
  readonly verify = async (state: string, ctx: ServerContext): Promise<EchoedState> => {
    try {
      return await this.verifySigned(state, ctx);
    } catch (error) {
      const reason = (error as Error).message;
      if (reason === "expired" || reason === "bind") return { refused: reason };
      throw error;
    }
  };

  /** Why the echoed state is not honoured (RefusedState), when it is one of those; checked before anything runs. */
  refusedOf(ctx: ServerContext): RefusedState["refused"] | undefined {
    const echoed = ctx.mcpReq.requestState<EchoedState>();
    return echoed && typeof echoed === "object" && "refused" in echoed ? echoed.refused : undefined;
  }

  private async verifySigned(state: string, ctx: ServerContext): Promise<ConfirmState> {
    const [current, ...earlier] = this.keys();
    try {
      return await this.codecOf(current!).verify(state, ctx);
    } catch (error) {
      if ((error as Error).message !== "mac") throw error;
      for (const key of earlier) {
        const payload = await this.codecOf(key).verify(state, ctx).catch((e: unknown) => ((e as Error).message === "mac" ? undefined : Promise.reject(e)));
        if (payload) return payload;
      }
      throw error;
    }
  }

  /**
   * What is wrong with the answer a request carries to this facade's confirmation question
   * (answers-check.ts); undefined when it answers none (no confirmation state) or fits the form.
   * Before, an answer of the wrong shape (`{}`, another key, `action: "yes"`, the `{method, result}`
   * wrapper) counted as none, and the user was asked the same question again, round after round.
   */
  answerProblem(ctx: ServerContext): string | undefined {
    const echoed = ctx.mcpReq.requestState<EchoedState>();
    if (!echoed || typeof echoed !== "object" || "refused" in echoed || echoed.held) return undefined;
    return answersProblem(ctx.mcpReq.inputResponses, CONFIRM_ASKED, ctx.mcpReq.droppedInputResponseKeys);
  }

  round(ctx: ServerContext): ConfirmRound {
    const echoed = ctx.mcpReq.requestState<EchoedState>();
    const state = echoed && typeof echoed === "object" && !("refused" in echoed) && !echoed.held && !this.local.has(echoed.nonce) ? echoed : undefined;
    const approved = new Set(state?.approved ?? []);
    const answered = new Map<string, ConfirmDecision>();
    const answer = state ? inputResponse(ctx.mcpReq.inputResponses, FORM_KEY) : undefined;
    if (state && answer) {
      if (answer.kind === "elicit") {
        const decision = decisionOf(answer.action, answer.content);
        if (decision === "accept") approved.add(state.pending);
        else answered.set(state.pending, decision);
      }
    }
    // Spent once per round, at the first approved write: every later one of the round rides on it.
    let spending: Promise<boolean> | undefined;
    return {
      answered: answer?.kind === "elicit",
      confirmer: async (question) => {
        const digest = questionDigest(question);
        if (approved.has(digest) && state) {
          if (await (spending ??= this.spend(state.nonce))) return "accept";
          // Spent already (a replay, here or on another instance): none of its answers count, ask again.
          approved.clear();
          answered.clear();
          throw new ConfirmInterrupt(question);
        }
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
    const echoed = ctx.mcpReq.requestState<EchoedState>();
    return echoed && typeof echoed === "object" && !("refused" in echoed) && echoed.held ? echoed.held : undefined;
  }

  /** The requestState of a round that asks a held call's downstream questions (signed and bound like a confirmation's). */
  mintHeld(ctx: ServerContext, held: { id: string; round: number }): Promise<string> {
    return this.codec.mint({ approved: [], pending: "", nonce: nodeCrypto().randomUUID(), held }, ctx);
  }
}
