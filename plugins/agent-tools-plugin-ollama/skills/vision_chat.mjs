import { askAboutImage, visionArgs } from "../lib/vision.mjs";

export const meta = {
  description: "Ask a vision model a question about one image (default: describe it). Checks first that the model has the vision capability and refuses otherwise.",
  args: visionArgs({ prompt: { type: "string", minLength: 1, description: "The question (default: describe the image)" } }),
  related: [{ target: "ollama:ocr", why: "to read the text in the image" }, { target: "ollama:grounding", why: "to locate things in it" }],
};

export async function run(adapter, args, context) {
  const prompt = args.prompt ?? "Describe this image in a few sentences: what it shows, the setting, and anything notable.";
  return { task: "vision_chat", ...(await askAboutImage(adapter, { ...args, prompt }, context)) };
}
