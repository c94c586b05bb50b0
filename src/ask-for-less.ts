/**
 * What every answer too large to pass on tells the model to do, in one wording: a REST or MCP
 * answer past the bytes the runtime reads (RESULT_TOO_LARGE), a program's output cut at the CLI
 * adapter's maxOutputBytes, a result cut to fit the typed tools' or the sandbox's cap. A model
 * meets them side by side (the same tool cut one way today, another tomorrow); each used to say
 * it differently ("filters, pagination", "a smaller page or limit", "narrow the call"), and the
 * shortest named no argument to change. A sentence, capitalised, without its full stop: callers
 * end it (", then call again.", "; or …").
 */
export const ASK_FOR_LESS = "Ask for less: the tool's filter, search, fields or page-size arguments (e.g. limit, per_page, fields, q), a narrower range, or one page at a time";
