// `rlm --help`, in plain JavaScript: bin/rlm.mjs prints it without loading TypeScript (tsx
// alone costs about 0.3 s), and src/cli/args.ts re-exports it for everything else.
export const HELP = `Usage: rlm --task "question" [--context-file PATH ...] --model NAME [options]
       rlm --task "question" [--context-file PATH ...] --model-file MODEL.gguf [options]
       rlm bench --model NAME [options]     (task suites, RLM vs direct answering; rlm bench --help)
       rlm warmup [--cache-dir DIR] [--rebuild]   (make the Python snapshot now; rlm warmup --help)

Answers a question about documents far larger than the model's window: the documents become
the Python variable \`context\` in a sandboxed Pyodide REPL, and the model explores them with code
and sub-calls. Reads the document from stdin when no --context-file is given.

Model server (any OpenAI-compatible endpoint: vLLM, Ollama, llama.cpp server, ...):
  --base-url URL            default $RLM_BASE_URL or http://localhost:8000/v1
  --model NAME              root model (default $RLM_MODEL)
  --sub-model NAME          model for llm_query sub-calls (default: the root model)
  --api-key KEY             default $RLM_API_KEY or $OPENAI_API_KEY
  --context-window N        root window in tokens (default: read from /v1/models, else 8192)
  --sub-context-window N    sub-model window in tokens
  --no-stream               ask for plain JSON replies instead of SSE

Local model (llama.cpp in this process, on the CPU; no server, nothing downloaded; the page's
WebLLM engine needs WebGPU and runs only in the page):
  --model-file PATH.gguf    run this GGUF (Qwen2.5, Qwen3, ... as LM Studio, Ollama or Jan store them)
  --sub-model-file PATH     a second GGUF for sub-calls (default: the same model, each sub-call
                            in a KV sequence of its own, so the root's cache is kept)
  --threads N               CPU threads (default: the machine's math cores)
  --context-window N        with --model-file: default the model's trained window, capped so
                            weights + KV cache fit in memory (--verbose shows the sums)

Input and output:
  --context-file PATH       a document; repeat for several (context becomes a dict path -> text)
  --task TEXT               the question
  --output-trajectory P     write the run as JSONL for the official rlm visualizer (.jsonl)
  --json                    print {answer, status, usage, sources, ...} as JSON instead of the answer
  --verbose                 show each step live on stderr; at the end, the answer's sources and where the time went
  --raw-output              on a terminal, write the answer, sources and --verbose text byte for byte. Without it,
                            control characters (escape sequences) are shown as ^[, \\x9b...; a pipe or file always
                            gets the bytes. Risk: text from the document, the model or its code can then drive your
                            terminal (write the clipboard, hide or overwrite lines, disguise links, set the title)
  -q, --quiet               no progress line on stderr (shown only when stderr is a terminal: turn, sub-calls, tokens/s)

Start-up cache (a snapshot of the started Python, ~30 MB: later runs start in well under a second):
  --cache-dir DIR           where it is kept (default $RLM_CACHE_DIR, else the user cache
                            directory: $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches
                            on macOS, %LOCALAPPDATA% on Windows, + /recursive-reader)
  --no-cache                neither read nor write it (same as RLM_CACHE_DIR=off)

Budgets and sampling:
  --max-iterations N        root turns (default 20)
  --max-depth N             1: rlm_query is a plain sub-call; 2: one level of child RLMs (default 1)
  --max-tokens N            tokens per root turn (default: a quarter of the window)
  --sub-max-tokens N        tokens per sub-call reply
  --max-subcalls N          sub-calls per question (default 200)
  --max-time S              seconds per question (default 900)
  --cell-timeout S          seconds of Python time per code cell; waiting for sub-calls does not count (default 60)
  --concurrency N           sub-calls in flight at once (default 4)
  --temperature T  --top-p P  --seed N

Prompt and method:
  --prompt NAME             auto (default: from the model's name), guided (short, for ≤ 4B roots),
                            standard, or canonical (the answer-dict protocol of RLM-trained models)
  --mode MODE               auto (default: one direct call when the whole document and question fit
                            the window, else the RLM), rlm (always the RLM), direct (always one call)
  --thinking                let a Qwen3-style root reason before it writes (off by default;
                            sub-calls never think)

When the model cannot drive a run, the harness can read the whole document with the helper model:
  --fallback MODE           ask (default: read within the limits below; above them ask on a
                            terminal, and without one do not read), always, or never
  --max-fallback-calls N    helper calls that reading may make without asking (default 12)
  --max-fallback-tokens N   tokens it may use without asking (default 100000)

  -h, --help                this help
  --version                 the version
Exit status: 0 with an answer, 1 when the run failed or ended without one, 2 on bad options.`;

/** The text to print for these arguments if they only ask for help, else null. */
export function quickHelp(argv) {
  if (argv[0] === "bench" || argv[0] === "warmup") return null; // they have their own help
  return argv.includes("--help") || argv.includes("-h") ? HELP : null;
}
