import { skillContext, skillError } from "agent-tools-runtime/plugin";

// Shared by the three vision skills: check the model can see, then one chat turn with one image
// and the task's fixed prompt.

const refuse = (message) => skillError("ARG_VALIDATION_FAILED", message);

/**
 * Refuse a model without the `vision` capability: Ollama would accept the image and silently
 * answer from the prompt alone.
 */
export async function requireVision(adapter, model, context) {
  const shown = await skillContext(adapter, context).call("show_model", { model });
  const capabilities = Array.isArray(shown?.capabilities) ? shown.capabilities : undefined;
  if (!capabilities) {
    throw refuse(`the Ollama server did not report the capabilities of '${model}' (an older Ollama?), so it cannot be checked for vision; update Ollama, or call chat with images yourself`);
  }
  if (!capabilities.includes("vision")) {
    throw refuse(
      `model '${model}' has no vision capability (it has: ${capabilities.join(", ") || "none"}), so it would ignore the image; pick a vision model (show_model lists a model's capabilities; e.g. llava, qwen2.5vl, gemma3)`,
    );
  }
  return capabilities;
}

export const visionArgs = (extra = {}, required = []) => ({
  type: "object",
  properties: {
    model: { type: "string", minLength: 1, description: "A model with the vision capability, e.g. llava:7b" },
    image: { type: "string", minLength: 1, description: "The image: base64, a data: URL, or a file name under OLLAMA_IMAGE_DIR" },
    ...extra,
  },
  required: ["model", "image", ...required],
  additionalProperties: false,
});

/** Check vision, then ask. Answers the model's text and the numbers Ollama reports. */
export async function askAboutImage(adapter, { model, image, prompt, options }, context) {
  await requireVision(adapter, model, context);
  const answer = await skillContext(adapter, context).call("chat", { model, messages: [{ role: "user", content: prompt, images: [image] }], ...(options ? { options } : {}) });
  return {
    model: answer?.model ?? model,
    text: answer?.message?.content ?? "",
    ...(answer?.eval_count !== undefined ? { evalCount: answer.eval_count } : {}),
    ...(answer?.total_duration !== undefined ? { totalMs: Math.round(answer.total_duration / 1e6) } : {}),
  };
}
