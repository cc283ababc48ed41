// Renders a model file's chat template once, off the page's thread, so a template that loops can
// be ended with its worker (src/engines/wllama/template-check.ts). One message in, one out.
import { renderChatTemplateOnce } from "../../src/engines/gguf/template.ts";

export type TemplateCheckReply = { ok: true } | { ok: false; message: string };

self.onmessage = (event: MessageEvent<string>) => {
  let reply: TemplateCheckReply;
  try {
    renderChatTemplateOnce(event.data);
    reply = { ok: true };
  } catch (err) {
    reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
