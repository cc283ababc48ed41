// A GGUF's chat template (tokenizer.chat_template) is Jinja code from the file, rendered by
// llama.cpp (the page) or node-llama-cpp (the command line) on every request with no bound. A
// template looping over range(2000000000) grew a process to 2.1 GB and killed it (issue 32). So a
// model is kept or loaded only after its template renders a short chat once, in a worker that is
// ended at a deadline. Here: that one render, with `range` capped, so the classic loop fails at
// once instead of filling memory (a page worker has no heap limit of its own). No DOM.
import { Environment, Interpreter, Template } from "@huggingface/jinja";

/** Far past any real template's loops (over messages, tools or a few characters). */
const MAX_RANGE = 100_000;

/** Python's range(), refusing to build a list longer than MAX_RANGE. */
function cappedRange(start: number, stop?: number, step = 1): number[] {
  if (stop === undefined) [start, stop] = [0, start];
  if (step === 0) throw new Error("range() step must not be zero");
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > MAX_RANGE) throw new Error(`range() of ${length.toLocaleString("en-US")} items (a chat template needs far fewer)`);
  return Array.from({ length }, (_, i) => start + i * step);
}

const CHAT = [
  { role: "system", content: "You answer questions about a document." },
  { role: "user", content: "What is on line two?" },
  { role: "assistant", content: "```repl\nprint(context[:100])\n```" },
  { role: "user", content: "Line two says 42." },
];

/**
 * Renders a short chat with `template`; throws (with Jinja's reason) when it cannot. The globals
 * are Template.render's own (setupGlobals in @huggingface/jinja), but with `range` capped: render()
 * refuses to redeclare a global, so the environment is built here.
 */
export function renderChatTemplateOnce(template: string): string {
  const env = new Environment();
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    False: false,
    True: true,
    None: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    range: cappedRange,
    strftime_now: () => new Date().toDateString(),
    messages: CHAT,
    add_generation_prompt: true,
    bos_token: "",
    eos_token: "",
    enable_thinking: false,
  };
  for (const [name, value] of Object.entries(globals)) env.set(name, value);
  return String(new Interpreter(env).run(new Template(template).parsed).value);
}
