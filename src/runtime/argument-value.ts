/**
 * A facade argument's value as a refusal names it (`the string "ten"`, `an empty string`,
 * `an array`, `5`): a string always says it is one, so `"5.5"` does not read as the number.
 */
export function describeArgumentValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 39)}…` : value;
    return value.trim() ? `the string ${JSON.stringify(shown)}` : "an empty string";
  }
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}
