// A module adapter for agent-tools-runtime: a class with listTools() and call(name, args).
// The runtime constructs it with { pluginDir, manifest, env, log }. No dependencies.

const LANGUAGES = ["en", "fr", "de"];

export class HelloAdapter {
  constructor(options = {}) {
    this.log = options.log;
    // language -> templates, oldest first; greet uses the newest.
    this.book = new Map([
      ["en", ["Hello, {name}!"]],
      ["fr", ["Bonjour, {name} !"]],
      ["de", ["Hallo, {name}!"]],
    ]);
  }

  async listTools() {
    const language = { type: "string", enum: LANGUAGES, description: "en, fr or de" };
    return {
      tools: [
        {
          name: "greet",
          description: "Greet one person by name, in English (default), French or German.",
          inputSchema: {
            type: "object",
            properties: { name: { type: "string", minLength: 1, description: "who to greet" }, language },
            required: ["name"],
            additionalProperties: false,
          },
        },
        {
          name: "list_greetings",
          description: "List every greeting template in the book, by language.",
          inputSchema: { type: "object", properties: {}, additionalProperties: false },
        },
        {
          name: "add_greeting",
          description: "Add a greeting template for a language; greet then uses it.",
          inputSchema: {
            type: "object",
            properties: {
              language,
              template: { type: "string", pattern: "\\{name\\}", description: "the greeting, with {name} where the name goes" },
            },
            required: ["language", "template"],
            additionalProperties: false,
          },
        },
      ],
    };
  }

  async call(name, args = {}) {
    switch (name) {
      case "greet": {
        // Skills call the adapter directly, without the runtime's validation: check again here.
        if (typeof args.name !== "string" || args.name.trim() === "") throw new Error("greet needs a non-empty 'name'");
        const language = args.language ?? "en";
        const templates = this.book.get(language);
        if (!templates) throw new Error(`no greetings for language '${language}' (languages: ${LANGUAGES.join(", ")})`);
        const template = templates[templates.length - 1];
        return { language, greeting: template.replaceAll("{name}", args.name.trim()) };
      }
      case "list_greetings":
        return { greetings: Object.fromEntries(this.book) };
      case "add_greeting": {
        const templates = this.book.get(args.language);
        if (!templates) throw new Error(`unknown language '${args.language}' (languages: ${LANGUAGES.join(", ")})`);
        if (typeof args.template !== "string" || !args.template.includes("{name}")) throw new Error("'template' must contain {name}");
        templates.push(args.template);
        this.log?.info(`hello: added a greeting for ${args.language}`);
        return { language: args.language, added: args.template, templates: templates.length };
      }
      default:
        throw new Error(`hello has no tool '${name}' (tools: greet, list_greetings, add_greeting)`);
    }
  }
}
