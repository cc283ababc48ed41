// The render worker: turns model text into chunks of safe HTML off the main thread, so a huge or
// pathological answer costs the page nothing while it is parsed. The page gives it a time budget
// and replaces it when it runs over (src/ui/render/render-client.ts).
import { MarkdownRenderer } from "../../src/ui/render/markdown-html.ts";
import type { RenderReply, RenderRequest } from "../../src/ui/render/protocol.ts";

const renderer = new MarkdownRenderer();
const reply = (message: RenderReply) => (self as unknown as Worker).postMessage(message);

self.addEventListener("message", (event: MessageEvent<RenderRequest>) => {
  const { id, text } = event.data;
  try {
    reply({ type: "rendered", id, chunks: renderer.render(text) });
  } catch (err) {
    reply({ type: "failed", id, message: err instanceof Error ? err.message : String(err) });
  }
});
