// A skill: a fixed recipe the server runs in one call instead of the model making one call per name.
export const meta = {
  description: "Greet every person in a list, one greet call each, and return all the greetings.",
  args: {
    type: "object",
    properties: { names: { type: "array", items: { type: "string" } } },
    required: ["names"],
  },
};

export async function run(adapter, args) {
  const greetings = [];
  for (const name of args.names) {
    const { greeting } = await adapter.call("greet", { name });
    greetings.push(greeting);
  }
  return { greetings };
}
