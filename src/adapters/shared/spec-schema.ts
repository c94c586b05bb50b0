import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { MAX_TIMER_MS, TIMER_LIMIT } from "../../positive-int.js";

/**
 * Building blocks of the adapter kinds' block schemas (mcp/schema.ts, rest/schema.ts,
 * cli/schema.ts), each with the sentence its problems are reported in (`problem`, read by
 * spec-check.ts). The block types the adapters read are derived from these schemas.
 */

export const NonEmpty = (problem = "must be a non-empty string") => Type.String({ pattern: "\\S", problem });
export const PositiveInt = (problem = "must be a positive integer") => Type.Integer({ minimum: 1, problem });
/** A timer's milliseconds: above 0 and no longer than a timer waits (positive-int.ts MAX_TIMER_MS). `from`: the least (0 where 0 turns it off). */
export const TimerMs = (from: 0 | 1 = 1) => Type.Integer({ minimum: from, maximum: MAX_TIMER_MS, problem: `must be a whole number of milliseconds from ${from} to ${MAX_TIMER_MS} (${TIMER_LIMIT})` });
export const Flag = () => Type.Boolean({ problem: "must be true or false" });
export const JsonObject = (problem: string) => Type.Record(Type.String(), Type.Unknown(), { problem });
export const StringMap = (problem = "must be an object of strings") => Type.Record(Type.String(), Type.String({ problem: "must be a string" }), { problem });
/** A closed object: unknown keys are reported with a did-you-mean among `properties`. */
export const Block = <P extends Record<string, TSchema>>(title: string, properties: P, problem?: string) =>
  Type.Object(properties, { additionalProperties: false, title, ...(problem ? { problem } : {}) });
/** One of a few words, as a plain `enum`, typed as their union. */
export const Word = <T extends string>(words: readonly T[], problem?: string) =>
  Type.Unsafe<T>({ type: "string", enum: [...words], ...(problem ? { problem } : {}) });

/** The error codes an `errors` rule may give a failure. */
const RULE_CODES = ["UPSTREAM_ERROR", "UPSTREAM_TIMEOUT", "NOT_CONFIGURED", "ARG_VALIDATION_FAILED"] as const;

/** A number or a non-empty list of them (statuses, exit codes). */
export const NumberSet = (problem = "must be an integer or a non-empty list of integers") => Type.Union([Type.Integer(), Type.Array(Type.Integer(), { minItems: 1 })], { problem });

/** What every `errors` rule says when it matches (shared/error-rules.ts). */
export const ruleOutcome = {
  code: Type.Optional(Word(RULE_CODES, `must be one of ${RULE_CODES.join(", ")}`)),
  message: NonEmpty(),
  hint: Type.Optional(NonEmpty()),
  details: Type.Optional(Type.Record(Type.String(), Type.String({ problem: "must be a string template" }), { problem: "must be an object of templates" })),
};

/** A rule's regular expression (compiled, case-insensitively, by shared/error-rules.ts). */
export const Pattern = () => NonEmpty("must be a non-empty regular expression");

const _RuleOutcomeSchema = Type.Object(ruleOutcome);
export type RuleOutcomeBlock = Static<typeof _RuleOutcomeSchema>;
