// Fetch once for the text and title, then ask the DOM for headings and links. The DOM step can
// fail on its own (a page that is not HTML); the overview then still answers what fetch found
// and names the step that failed.
export const meta = {
  description: "Overview of a web page in one call: status, title, headings, links and a short text excerpt (fetch_page, then browser_get_dom).",
  args: {
    type: "object",
    properties: {
      url: { type: "string", minLength: 1, description: "http(s) URL of the page" },
      max_links: { type: "integer", minimum: 0, maximum: 200, description: "Most links listed (default 20)" },
      excerpt_chars: { type: "integer", minimum: 0, maximum: 5000, description: "Length of the text excerpt (default 500)" },
    },
    required: ["url"],
    additionalProperties: false,
  },
};

function valueOf(result) {
  if (!result || typeof result !== "object" || !Array.isArray(result.content)) return result;
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
  if (result.isError) throw new Error(text || "the tool reported an error");
  return result.structuredContent ?? JSON.parse(text);
}

export async function run(adapter, args) {
  const maxLinks = args.max_links ?? 20;
  const excerptChars = args.excerpt_chars ?? 500;
  // The first call has nothing to fall back on: its failure is the skill's failure.
  const page = valueOf(await adapter.call("fetch_page", { url: args.url }));
  const overview = {
    url: page.url,
    status: page.status,
    contentType: page.contentType,
    title: page.title,
    words: page.text ? page.text.split(/\s+/).filter(Boolean).length : 0,
    excerpt: (page.text ?? "").slice(0, excerptChars),
  };
  const steps = { fetch_page: "ok" };
  try {
    const dom = valueOf(await adapter.call("browser_get_dom", { url: args.url, selector: "h1,h2,h3,a" }));
    overview.headings = dom.nodes.filter((n) => /^h\d$/.test(n.tag)).map((n) => ({ level: Number(n.tag.slice(1)), text: n.text }));
    const links = dom.nodes.filter((n) => n.tag === "a" && n.attrs?.href);
    overview.links = links.slice(0, maxLinks).map((n) => ({ text: n.text, href: n.attrs.href }));
    overview.linkCount = links.length;
    steps.browser_get_dom = "ok";
  } catch (error) {
    steps.browser_get_dom = `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { ...overview, steps, complete: Object.values(steps).every((s) => s === "ok") };
}
