// Renders a model file's chat template once, the way node-llama-cpp will (its Jinja wrapper, its
// sanity test, then a short chat), in a worker thread that chat-template.ts bounds in time and
// memory. Plain JavaScript: it is started by path, from the bundle and from tsx alike. Replies go
// on the port it is given, which the other side can also read synchronously when its deadline fires.
import { workerData } from "node:worker_threads";

const { template, port } = workerData;
const { JinjaTemplateChatWrapper } = await import("node-llama-cpp");
port.postMessage({ type: "ready" });

const CHAT = [
  { type: "system", text: "You answer questions about a document." },
  { type: "user", text: "What is on line two?" },
  { type: "model", response: ["```repl\nprint(context[:100])\n```"] },
  { type: "user", text: "Line two says 42." },
  { type: "model", response: [] },
];

try {
  const wrapper = new JinjaTemplateChatWrapper({ template });
  wrapper.generateContextState({ chatHistory: CHAT });
  port.postMessage({ type: "done" });
} catch (err) {
  port.postMessage({ type: "failed", message: err instanceof Error ? err.message : String(err) });
}
port.close();
