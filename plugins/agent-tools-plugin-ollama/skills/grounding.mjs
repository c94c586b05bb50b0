import { askAboutImage, visionArgs } from "../lib/vision.mjs";

export const meta = {
  description: "Locate things in one image with a vision model: bounding boxes [x1, y1, x2, y2] with labels, parsed from the model's JSON. Checks first that the model has the vision capability and refuses otherwise.",
  args: visionArgs({ target: { type: "string", minLength: 1, description: "What to find, e.g. 'every person' or 'the red button'" } }, ["target"]),
  related: [{ target: "ollama:vision_chat", why: "to describe the image instead" }],
};

/**
 * The JSON array the model answered: a code fence's content first, else the text from its first
 * `[` to its last `]` (models wrap the array in prose or a fence). undefined when none parses.
 */
function arrayIn(text) {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const start = text.indexOf("[");
  const end = text.lastIndexOf("]");
  const spans = [fenced, start >= 0 && end > start ? text.slice(start, end + 1) : undefined];
  for (const span of spans) {
    if (span === undefined) continue;
    try {
      const parsed = JSON.parse(span.trim());
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not this span: try the next
    }
  }
  return undefined;
}

const kindOf = (value) => (value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "string" ? `the text ${JSON.stringify(value.slice(0, 40))}` : typeof value === "object" ? "an object" : `the ${typeof value} ${value}`);

/** Why an item of the model's array is not a box `{label, box_2d: [x1, y1, x2, y2]}`; undefined for a box. */
function boxProblem(item) {
  if (!item || typeof item !== "object" || Array.isArray(item)) return `it is ${kindOf(item)}, not an object {label, box_2d}`;
  if (typeof item.label !== "string" || !item.label.trim()) return "it has no label (a non-empty string)";
  const box = item.box_2d;
  if (!Array.isArray(box) || box.length !== 4) return `its box_2d is ${box === undefined ? "missing" : kindOf(box) === "a list" ? `a list of ${box.length}` : kindOf(box)}, not four numbers [x1, y1, x2, y2]`;
  const odd = box.findIndex((n) => typeof n !== "number" || !Number.isFinite(n) || n < 0);
  if (odd >= 0) return `its box_2d[${odd}] is ${kindOf(box[odd])}, not a pixel coordinate (a number of at least 0)`;
  if (box[0] > box[2] || box[1] > box[3]) return `its box_2d ${JSON.stringify(box)} is not [x1, y1, x2, y2] with x1 ≤ x2 and y1 ≤ y2`;
  return undefined;
}

const shortJson = (value) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
};

/**
 * The boxes in the model's answer, each checked: valid ones in `boxes`, the others in `rejected`
 * with why (so nothing the model said is lost), and a `note` whenever the answer held no box.
 */
function boxesFrom(text) {
  const items = arrayIn(text);
  if (!items) return { boxes: [], note: "the model's answer held no JSON array of boxes; see text" };
  if (items.length === 0) return { boxes: [], note: "the model found no match: it answered an empty list" };
  const boxes = [];
  const rejected = [];
  for (const [index, item] of items.entries()) {
    const problem = boxProblem(item);
    if (problem) rejected.push({ index, item: shortJson(item), problem });
    else boxes.push({ label: item.label, box_2d: item.box_2d });
  }
  if (!rejected.length) return { boxes };
  const note = boxes.length
    ? `${rejected.length} of the ${items.length} items the model answered are not boxes {label, box_2d: [x1, y1, x2, y2]} and were left out; see rejected`
    : `the model's answer held no box: none of its ${items.length} item(s) is {label, box_2d: [x1, y1, x2, y2]}; see rejected and text`;
  return { boxes, rejected, note };
}

export async function run(adapter, args, context) {
  const prompt =
    `Find ${args.target} in this image. Answer with a JSON array only, one object per match: ` +
    `{"label": string, "box_2d": [x1, y1, x2, y2]} with pixel coordinates of each bounding box. Answer [] if there is none.`;
  const answer = await askAboutImage(adapter, { ...args, prompt, options: { temperature: 0 } }, context);
  return { task: "grounding", target: args.target, ...answer, ...boxesFrom(answer.text) };
}
