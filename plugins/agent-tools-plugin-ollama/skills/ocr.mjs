import { askAboutImage, visionArgs } from "../lib/vision.mjs";

export const meta = {
  description: "Read the text in one image with a vision model (OCR), keeping line breaks. Checks first that the model has the vision capability and refuses otherwise.",
  args: visionArgs(),
  related: [{ target: "ollama:vision_chat", why: "for questions about the image beyond its text" }],
};

const PROMPT =
  "Transcribe all text in this image exactly as written, line by line, keeping the reading order. Output only the text, with no commentary. If there is no text, output nothing.";

export async function run(adapter, args, context) {
  // Temperature 0: a transcription should not vary between runs.
  const answer = await askAboutImage(adapter, { ...args, prompt: PROMPT, options: { temperature: 0 } }, context);
  const lines = answer.text.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== "");
  return { task: "ocr", ...answer, lines };
}
