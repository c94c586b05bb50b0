import { Type, type Static } from "@sinclair/typebox";
import { HTTP_METHOD_PATTERN, HTTP_METHODS } from "./methods.js";
import { Block, Flag, JsonObject, NonEmpty, NumberSet, Pattern, PositiveInt, ruleOutcome, StringMap, TimerMs, Word } from "../shared/spec-schema.js";

/**
 * The declarative `rest` and `openapi` blocks as schemas; spec.ts normalises what passes (defaults,
 * the path template, body mapping) and checks the rules that span fields. Types derived here.
 */

const DOT_PATH = "^[A-Za-z0-9_$@-]+(\\[\\])?(\\.[A-Za-z0-9_$@-]+(\\[\\])?)*$";
const DotPath = () => Type.String({ pattern: DOT_PATH, problem: 'must be a dot path such as "owner.login" or "labels[].name"' });

/** Each `auth` type is its own closed object, chosen by `type` (an OpenAPI-style discriminator). */
const authTypes = {
  bearer: Block("a bearer auth", { type: Type.Literal("bearer"), token: NonEmpty() }),
  header: Block("a header auth", { type: Type.Literal("header"), name: NonEmpty(), value: NonEmpty() }),
  query: Block("a query auth", { type: Type.Literal("query"), name: NonEmpty(), value: NonEmpty() }),
  login: Block("a login auth", {
    type: Type.Literal("login"),
    url: NonEmpty(),
    body: JsonObject("must be an object (the credentials to POST)"),
    tokenPath: Type.Optional(NonEmpty()),
    header: Type.Optional(NonEmpty()),
    scheme: Type.Optional(Type.String()),
    /** Statuses after which the token is dropped and the request retried once (default [401]). */
    retryOn: Type.Optional(Type.Array(Type.Integer({ minimum: 400, maximum: 499, problem: "must be an HTTP 4xx status" }), { minItems: 1, problem: "must be a non-empty array of HTTP 4xx statuses, e.g. [401, 403]" })),
  }),
};

export type AuthBlock = Static<(typeof authTypes)[keyof typeof authTypes]>;
export const AuthSchema = Type.Unsafe<AuthBlock>({
  type: "object",
  required: ["type"],
  oneOf: Object.values(authTypes),
  discriminator: { propertyName: "type" },
  problem: "must be an object with a 'type' (bearer, header, query or login)",
});

export const PaginateSchema = Block("paginate", {
  style: Word(["link", "page"] as const, 'must be "link" or "page"'),
  /** page style: the page-number query parameter (default "page"). */
  param: Type.Optional(NonEmpty()),
  perPageParam: Type.Optional(NonEmpty()),
  perPage: Type.Optional(PositiveInt()),
  start: Type.Optional(Type.Integer({ minimum: 0, problem: "must be a non-negative integer" })),
  itemsPath: Type.Optional(NonEmpty()),
  maxPages: Type.Optional(PositiveInt()),
  /** page style: dot path of the service's own "more pages follow" sign (`has_more`, `next`). */
  hasMorePath: Type.Optional(NonEmpty()),
  /** page style: dot path of the service's count of all items (`total`). */
  totalPath: Type.Optional(NonEmpty()),
});

export const ResultShapeSchema = Type.Object(
  {
    itemsPath: Type.Optional(DotPath()),
    drop: Type.Optional(Type.Array(DotPath(), { minItems: 1, problem: "must be a non-empty array of dot paths" })),
    fields: Type.Optional(Type.Record(Type.String(), DotPath(), { minProperties: 1, problem: "must be a non-empty object {outputName: dot path}" })),
    first: Type.Optional(Flag()),
  },
  { additionalProperties: false, keyProblem: "is not a result option (itemsPath, drop, fields, first)", problem: "must be an object { itemsPath?, drop?, fields?, first? }" },
);

const Names = (what: string) =>
  Type.Union([Type.Array(NonEmpty()), Type.Record(Type.String(), NonEmpty())], { problem: `must be an array of argument names or an object {${what}: argName}` });

export const RestToolSchema = Block(
  "a rest tool",
  {
    name: Type.String({ pattern: "^[A-Za-z0-9_-]{1,128}$", problem: "must be 1-128 letters, digits, '_' or '-'" }),
    description: Type.Optional(NonEmpty()),
    /** GET unless said; any case (spec.ts upper-cases it). */
    method: Type.Optional(Type.String({ pattern: HTTP_METHOD_PATTERN, problem: `must be an HTTP method: ${HTTP_METHODS.join(", ")} (any case)` })),
    path: NonEmpty(),
    query: Type.Optional(Names("param")),
    /** "*": every argument not used elsewhere; else the listed ones. */
    body: Type.Optional(Type.Union([Type.Literal("*"), Type.Array(NonEmpty()), Type.Record(Type.String(), NonEmpty())], { problem: 'must be "*", an array of argument names or an object {property: argName}' })),
    bodyArg: Type.Optional(NonEmpty()),
    constQuery: Type.Optional(Type.Record(Type.String(), NonEmpty(), { problem: "must be an object of strings" })),
    readonly: Type.Optional(Flag()),
    inputSchema: Type.Optional(JsonObject("must be a JSON Schema object")),
    defaults: Type.Optional(JsonObject("must be an object {argumentName: value}")),
    bodyConstants: Type.Optional(JsonObject('must be an object of JSON body properties, e.g. {"stream": false}')),
    paginate: Type.Optional(Type.Union([PaginateSchema, Type.Literal(false), Type.Null()], { problem: "must be an object with a 'style' (link or page)" })),
    result: Type.Optional(ResultShapeSchema),
  },
  "must be an object",
);

const RestErrorRuleSchema = Block("a rest errors rule", {
  status: NumberSet("must be an HTTP status or a non-empty list of them"),
  headers: Type.Optional(Type.Record(Type.String(), Type.String({ problem: 'must be a string ("*" matches any value)' }), { problem: 'must be an object {header: value or "*"}' })),
  bodyMatches: Type.Optional(Pattern()),
  ...ruleOutcome,
});

export const RestErrorRulesSchema = Type.Array(RestErrorRuleSchema, { problem: "must be an array of rules" });

/** What the rest and openapi blocks share: where the service is and how it is reached. */
const connection = {
  kind: Type.Optional(Type.String()),
  /** May hold `${VAR}`; resolved at call time. */
  baseUrl: NonEmpty(),
  headers: Type.Optional(StringMap()),
  auth: Type.Optional(Type.Union([AuthSchema, Type.Null()], { problem: "must be an object with a 'type'" })),
  timeoutMs: Type.Optional(TimerMs()),
  /** false: writes are sent without an Idempotency-Key header. */
  idempotencyKeys: Type.Optional(Flag()),
  maxResponseBytes: Type.Optional(PositiveInt()),
  errors: Type.Optional(RestErrorRulesSchema),
};

export const RestBlockSchema = Block("a rest block", {
  ...connection,
  tools: Type.Array(RestToolSchema, { minItems: 1, problem: "must be a non-empty array of tool definitions" }),
});

const OperationIds = () => Type.Array(Type.String(), { problem: "must be an array of operationIds" });

export const OpenApiBlockSchema = Block("an openapi block", {
  ...connection,
  /** Default: the document's first absolute server URL. */
  baseUrl: Type.Optional(NonEmpty()),
  spec: NonEmpty("must be a file path or URL of an OpenAPI 3 document"),
  include: Type.Optional(OperationIds()),
  readonly: Type.Optional(OperationIds()),
});

export type RestBlock = Static<typeof RestBlockSchema>;
export type RestToolBlock = Static<typeof RestToolSchema>;
export type OpenApiBlock = Static<typeof OpenApiBlockSchema>;
export type RestErrorRuleBlock = Static<typeof RestErrorRuleSchema>;
export type PaginateBlock = Static<typeof PaginateSchema>;
export type ResultShapeBlock = Static<typeof ResultShapeSchema>;
