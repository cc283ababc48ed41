// A GGUF model file's header, read and checked in JavaScript before any llama.cpp sees the file:
// the one reader the page (wllama) and the command line (node-llama-cpp) share.
export {
  GgufFormatError,
  GgufSignatureError,
  GgufTruncatedError,
  kvNumber,
  kvString,
  readGgufHeader,
  shownName,
  splitPart,
  tensorBytes,
  type GgufHeader,
} from "./header.ts";
export { renderChatTemplateOnce } from "./template.ts";
