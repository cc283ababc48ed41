// A GGUF's chat template (tokenizer.chat_template) is Jinja code from the file. node-llama-cpp
// renders it in this thread with no bound: a template looping over range(2000000000) ran for a
// minute and took the process down at 2.1 GB with a V8 fatal error, and a self-recursive one
// printed stack traces (issue 32). So it is rendered once first, in a worker thread with a heap
// limit and a deadline; a template that fails, runs long or grows is refused with the reason.
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";

export interface TemplateLimits {
  /**
   * Rendering time allowed once the worker has loaded node-llama-cpp. A real template takes
   * milliseconds; the limit is wall-clock time, so it is generous for a machine under load.
   */
  renderMs: number;
  /** Heap for the worker; real templates render in a few MB. */
  heapMb: number;
}

export const TEMPLATE_LIMITS: TemplateLimits = { renderMs: 60_000, heapMb: 256 };

/** Loading node-llama-cpp in the worker; generous for a loaded 2-core machine. */
const START_MS = 120_000;

type Reply = { type: "ready" } | { type: "done" } | { type: "failed"; message: string };

/** Why the template cannot be used, in a phrase (null when it renders within the limits). */
export function checkChatTemplate(template: string, limits: TemplateLimits = TEMPLATE_LIMITS): Promise<string | null> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./chat-template.worker.mjs", import.meta.url), {
    workerData: { template, port: port2 },
    transferList: [port2],
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  });
  return new Promise<string | null>((resolve) => {
    let settled = false;
    const finish = (problem: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      port1.close();
      worker.removeAllListeners();
      worker.on("error", () => undefined);
      void worker.terminate();
      resolve(problem);
    };
    // A busy machine may run this timer before the reply that beat it: read what is waiting first.
    const drain = () => {
      for (let waiting = receiveMessageOnPort(port1); waiting && !settled; waiting = receiveMessageOnPort(port1)) {
        onReply(waiting.message as Reply);
      }
    };
    const deadline = (problem: string) => () => {
      drain();
      finish(problem);
    };
    let timer = setTimeout(deadline(`the check did not start within ${START_MS / 1000} s`), START_MS);
    const onReply = (reply: Reply) => {
      if (reply.type === "ready") {
        clearTimeout(timer);
        timer = setTimeout(deadline(`rendering a short chat ran for more than ${limits.renderMs / 1000} s`), limits.renderMs);
      } else if (reply.type === "done") finish(null);
      else finish(`rendering a short chat failed (${oneLine(reply.message)})`);
    };
    port1.on("message", onReply);
    worker.on("error", (err: Error & { code?: string }) => {
      if (err.code === "ERR_WORKER_OUT_OF_MEMORY") finish(`rendering a short chat needed more than ${limits.heapMb} MB of memory`);
      else finish(`rendering a short chat failed (${oneLine(err.message)})`);
    });
    worker.on("exit", () => {
      drain();
      finish("rendering a short chat ended the check without a result");
    });
  });
}

const oneLine = (s: string) => {
  const line = s.split("\n")[0]!.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
};
