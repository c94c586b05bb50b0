import { askAboutImage, visionArgs } from "../lib/vision.mjs";

export const meta = {
  description: "Locate things in one image with a vision model: bounding boxes [x1, y1, x2, y2] with labels, parsed from the model's JSON. Checks first that the model has the vision capability and refuses otherwise.",
  args: visionArgs({ target: { type: "string", minLength: 1, description: "What to find, e.g. 'every person' or 'the red button'" } }, ["target"]),
  related: [{ target: "ollama:vision_chat", why: "to describe the image instead" }],
};

/** The first JSON array in the text (models often wrap it in prose or a code fence). */
function boxesFrom(text) {
  const start = text.indexOf("[");
  const end = text.lastIndexOf("]");
  if (start < 0 || end <= start) return undefined;
  try {
    const parsed = JSON.parse(text.slice(start, end + 1));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function run(adapter, args, context) {
  const prompt =
    `Find ${args.target} in this image. Answer with a JSON array only, one object per match: ` +
    `{"label": string, "box_2d": [x1, y1, x2, y2]} with pixel coordinates of each bounding box. Answer [] if there is none.`;
  const answer = await askAboutImage(adapter, { ...args, prompt, options: { temperature: 0 } }, context);
  const boxes = boxesFrom(answer.text);
  return { task: "grounding", target: args.target, ...answer, ...(boxes ? { boxes } : { boxes: [], note: "the model's answer held no JSON array of boxes; see text" }) };
}
