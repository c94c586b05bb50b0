import { skillContext } from "agent-tools-runtime/plugin";

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

export async function run(adapter, args, context) {
  // The kit answers each tool's value (plain text included) and throws on a result flagged isError.
  const kit = skillContext(adapter, context);
  const maxLinks = args.max_links ?? 20;
  const excerptChars = args.excerpt_chars ?? 500;
  // The first call has nothing to fall back on: its failure is the skill's failure.
  const page = await kit.call("fetch_page", { url: args.url });
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
    const dom = await kit.call("browser_get_dom", { url: args.url, selector: "h1,h2,h3,a" });
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
