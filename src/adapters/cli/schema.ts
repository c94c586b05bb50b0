import { Type, type Static } from "@sinclair/typebox";
import { Block, Flag, JsonObject, NonEmpty, NumberSet, Pattern, PositiveInt, ruleOutcome, TimerMs, Word } from "../shared/spec-schema.js";

/**
 * The declarative `cli` block as a schema; spec.ts normalises what passes and template.ts checks
 * the argv templates (placeholders, optional groups), which a schema cannot say. Types derived here.
 */

const VARIABLE = "^[A-Za-z_][A-Za-z0-9_]*$";
const Strings = (problem: string) => Type.Array(Type.String({ problem: "must be a string" }), { problem });

export const CliToolSchema = Block(
  "a cli tool",
  {
    name: Type.String({ pattern: "^[A-Za-z0-9_-]{1,128}$", problem: "must be 1-128 letters, digits, '_' or '-'" }),
    description: Type.Optional(Type.String({ problem: "must be a string" })),
    argv: Strings("must be an array of strings"),
    /** `{ argument: [argv items] }`: added only when the argument is given. */
    optional: Type.Optional(
      Type.Record(Type.String({ pattern: VARIABLE }), Type.Array(Type.String({ problem: "must be a string" }), { minItems: 1, problem: "must be a non-empty array of strings" }), {
        additionalProperties: false,
        keyProblem: "is not a valid argument name (letters, digits, '_')",
        problem: "must be an object { argument: [argv items] }",
      }),
    ),
    inputSchema: Type.Optional(JsonObject("must be a JSON Schema object")),
    readonly: Type.Optional(Flag()),
    parse: Type.Optional(Word(["json", "text"] as const, 'must be "json" or "text"')),
    /** Overrides the block's timeoutMs for this tool. */
    timeoutMs: Type.Optional(TimerMs()),
  },
  "must be an object",
);

const CliErrorRuleSchema = Block("a cli errors rule", {
  exitCode: Type.Optional(NumberSet()),
  stderrMatches: Type.Optional(Pattern()),
  ...ruleOutcome,
});

export const CliErrorRulesSchema = Type.Array(CliErrorRuleSchema, { problem: "must be an array of rules" });

export const CliBlockSchema = Block("a cli block", {
  kind: Type.Optional(Type.String()),
  program: Type.String({ pattern: "^[^\\u0000]*\\S[^\\u0000]*$", problem: "must be a non-empty program name or path" }),
  /** Programs this block may run; a string is a list as AGENT_CLI_ALLOWLIST spells it. */
  allowlist: Type.Optional(Type.Union([Type.String(), Type.Array(NonEmpty())], { problem: "must be an array of program names or paths" })),
  env: Type.Optional(
    Type.Record(Type.String({ pattern: VARIABLE }), Type.String({ problem: "must be a string" }), {
      additionalProperties: false,
      keyProblem: "is not a valid variable name",
      problem: "must be an object of strings",
    }),
  ),
  /** May hold `${VAR}`; relative to the plugin folder. */
  cwd: Type.Optional(NonEmpty("must be a non-empty path")),
  timeoutMs: Type.Optional(TimerMs()),
  maxOutputBytes: Type.Optional(PositiveInt()),
  tools: Type.Array(CliToolSchema, { minItems: 1, problem: "must be a non-empty array of tools" }),
  errors: Type.Optional(CliErrorRulesSchema),
});

export type CliBlock = Static<typeof CliBlockSchema>;
export type CliToolBlock = Static<typeof CliToolSchema>;
export type CliErrorRuleBlock = Static<typeof CliErrorRuleSchema>;
