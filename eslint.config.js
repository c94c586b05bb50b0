import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".clients/**", "test/fixtures/**/node_modules/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly", clearTimeout: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // stdout is the stdio transport: nothing in src/ may print to it.
    files: ["src/**/*.ts"],
    rules: {
      "no-console": ["error", { allow: ["error", "warn"] }],
      // Node 20's AbortSignal.any holds its sources weakly: a timeout source is collected and never fires.
      "no-restricted-properties": ["error", { object: "AbortSignal", property: "any", message: "Use anySignal (src/any-signal.ts): it keeps the sources alive." }],
    },
  },
);
