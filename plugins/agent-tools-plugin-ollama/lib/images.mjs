import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Ollama wants each image as a bare base64 string. A caller may also send a data: URL (its
 * prefix is removed) or — only when the host set OLLAMA_IMAGE_DIR — the name of an image file in
 * that folder, read here on the host. Without the variable no host file is ever read: image
 * paths from a model's arguments would otherwise let it send any readable file to the model
 * server, which may be a remote one.
 */

const IMAGE_FILE = /\.(png|jpe?g|webp|gif|bmp)$/i;
const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,/i;
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

function argumentError(where, message) {
  const error = new Error(`${where}: ${message}`);
  error.code = "ARG_VALIDATION_FAILED";
  return error;
}

async function readImageFile(name, where, imageDir) {
  if (!imageDir) {
    throw argumentError(where, `'${name}' looks like a file name, and reading host files is off; send the image as base64, or have the host set OLLAMA_IMAGE_DIR to a folder of images the server may read`);
  }
  const root = await realpath(imageDir).catch(() => {
    throw argumentError(where, `OLLAMA_IMAGE_DIR (${imageDir}) does not exist on the host`);
  });
  const resolved = await realpath(path.resolve(root, name)).catch(() => {
    throw argumentError(where, `no image '${name}' in OLLAMA_IMAGE_DIR`);
  });
  if (resolved !== root && !resolved.startsWith(root + path.sep)) throw argumentError(where, `'${name}' is outside OLLAMA_IMAGE_DIR; name a file inside it`);
  const info = await stat(resolved);
  if (!info.isFile()) throw argumentError(where, `'${name}' is not a file`);
  if (info.size > MAX_IMAGE_BYTES) throw argumentError(where, `'${name}' is ${info.size} bytes, more than the ${MAX_IMAGE_BYTES} allowed`);
  return (await readFile(resolved)).toString("base64");
}

async function normaliseList(images, where, imageDir) {
  if (!Array.isArray(images)) return images;
  return Promise.all(
    images.map(async (image, i) => {
      const at = `${where}[${i}]`;
      if (typeof image !== "string") return image;
      const text = image.trim();
      if (DATA_URL.test(text)) return text.replace(DATA_URL, "");
      // '.' is not a base64 character, so "x.png" can only be a file name.
      if (IMAGE_FILE.test(text) && text.length < 4096) return readImageFile(text, at, imageDir);
      return text;
    }),
  );
}

/** Arguments of generate/chat with every image made into base64. */
export async function withBase64Images(tool, args, imageDir) {
  if (tool === "generate" && args.images !== undefined) return { ...args, images: await normaliseList(args.images, "images", imageDir) };
  if (tool === "chat" && Array.isArray(args.messages)) {
    const messages = await Promise.all(
      args.messages.map(async (message, i) =>
        message && typeof message === "object" && message.images !== undefined ? { ...message, images: await normaliseList(message.images, `messages[${i}].images`, imageDir) } : message,
      ),
    );
    return { ...args, messages };
  }
  return args;
}
