// The page's bound on a model file's chat template: one render in a worker (src/engines/gguf/
// template.ts), ended after a deadline. Without it a template that loops was kept, and hung the
// model worker on the first question.
import type { TemplateCheckReply } from "../../../workers/browser/gguf-template.worker.ts";

/** A real template renders in milliseconds; this is wall-clock time on a possibly busy machine. */
const DEADLINE_MS = 15_000;

/** Why the template cannot be used, in a phrase (null when it renders in time). */
export function checkTemplateInWorker(template: string, deadlineMs = DEADLINE_MS): Promise<string | null> {
  // Vite bundles the worker only when it sees this literal `new Worker(new URL(...))` form.
  const worker = new Worker(new URL("../../../workers/browser/gguf-template.worker.ts", import.meta.url), {
    type: "module",
    name: "gguf-template",
  });
  return new Promise((resolve) => {
    const finish = (problem: string | null) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(problem);
    };
    const timer = setTimeout(() => finish(`rendering a short chat ran for more than ${deadlineMs / 1000} s`), deadlineMs);
    worker.onmessage = (event: MessageEvent<TemplateCheckReply>) =>
      finish(event.data.ok ? null : `rendering a short chat failed (${event.data.message.split("\n")[0]!.slice(0, 200)})`);
    worker.onerror = (event) => finish(`rendering a short chat failed (${event.message || "the worker stopped"})`);
    worker.postMessage(template);
  });
}
