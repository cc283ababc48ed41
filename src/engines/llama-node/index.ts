// A local GGUF model run in this process by llama.cpp (node-llama-cpp's CPU build): the root and
// sub-call engines of an RLM run. One context holds one KV sequence for the root (two when child
// RLMs may use the root model) and one per sub-call slot, so sub-calls never evict the root's
// cache and a root turn evaluates only what is new. Everything is checked before loading: the
// file (model-file.ts) and whether weights plus KV cache fit in memory (memory.ts).
//
// Import this module with `await import()`: it loads node-llama-cpp only when a model is opened.
import { freemem, totalmem } from "node:os";
import type { LlamaContext, LlamaModel } from "node-llama-cpp";
import { groupDigits } from "../../core/numbers.ts";
import { contextRefusal, loadRefusal } from "./load-errors.ts";
import {
  LlamaNodeEngine,
  type LlamaCppCounters,
  type LlamaRequestStats,
  type PrefillProgress,
  type SequenceSlot,
  type TestGrammar,
} from "./engine.ts";
import { describeModelPlan, mib, planMemory, type MemoryPlan, type ModelPlan } from "./memory.ts";
import { inspectModelFile, type ModelFile } from "./model-file.ts";
import { listenToLlamaLog, llamaRuntime, type LlamaRuntime } from "./runtime.ts";
import { Slots } from "./slots.ts";

export { LlamaNodeEngine, PREFILL_BATCH, type PrefillProgress, type LlamaRequestStats, type TestGrammar } from "./engine.ts";
export { type MemoryPlan } from "./memory.ts";
export interface LocalModelOptions {
  /** The GGUF for the root (and, without `subModelFile`, for sub-calls). */
  modelFile: string;
  /** A second GGUF for sub-calls. */
  subModelFile?: string;
  /** CPU threads per evaluation (default: llama.cpp's count of this machine's math cores). */
  threads?: number;
  /** The root's window in tokens (default: the trained window, capped by memory). */
  contextWindow?: number;
  /** Sub-call slots, each its own KV sequence (default 4, as --concurrency). */
  subCallSlots?: number;
  /** Child RLMs (--max-depth 2) run on the root model: give them a sequence of their own. */
  childRoots?: boolean;
  /** Called after every request with what llama.cpp evaluated and reused. */
  onRequest?: (stats: LlamaRequestStats) => void;
  /** While a prompt is read, after each batch (the CLI's progress line). */
  onPrefill?: (progress: PrefillProgress) => void;
  /** While a model file loads: its name, its size and the share loaded (0 to 1). */
  onLoadProgress?: (progress: LoadProgress) => void;
  /** llama.cpp's own warnings and errors, one line each (for --verbose). */
  onLog?: (line: string) => void;
  /** Memory to plan against (default: what the OS says is available). */
  availableBytes?: number;
  /** Tests only: per-request grammars that script a random-weight model (`rlm` passes src/cli/test-hook.ts's). */
  testGrammar?: TestGrammar;
  /** Tests only: keep llama.cpp's performance counters and report them with each request's stats. */
  performanceTracking?: boolean;
}

export interface LocalModels {
  root: LlamaNodeEngine;
  sub: LlamaNodeEngine;
  plan: MemoryPlan;
  threads: number;
  /** What was loaded and why the window is what it is, one line each (for --verbose). */
  describe(): string[];
  close(): Promise<void>;
}

/** How far a model file has loaded (node-llama-cpp reports the share; the size is the file's weights). */
export interface LoadProgress {
  label: string;
  fraction: number;
  bytes: number;
}

/** Default sub-call slots: the CLI's default --concurrency. */
export const DEFAULT_SUB_CALL_SLOTS = 4;

/**
 * Memory to plan against. Linux reports what can be had without swapping (MemAvailable, within
 * a cgroup limit if there is one); macOS and Windows count cached files as used, so their free
 * figure is too low to refuse on, and most of the total is taken instead.
 */
export function availableMemory(): number {
  if (process.platform !== "linux") return Math.max(freemem(), totalmem() * 0.6);
  const limit = process.constrainedMemory?.() ?? 0;
  const inCgroup = limit > 0 && limit < totalmem() ? limit - process.memoryUsage.rss() : Infinity;
  return Math.min(freemem(), inCgroup);
}

export async function openLocalModels(options: LocalModelOptions, signal?: AbortSignal): Promise<LocalModels> {
  const runtime = await llamaRuntime();
  const rootFile = await inspectModelFile(options.modelFile, runtime);
  const subFile = options.subModelFile ? await inspectModelFile(options.subModelFile, runtime) : undefined;
  const rootSequences = options.childRoots ? 2 : 1;
  const plan = planMemory({
    root: rootFile,
    ...(subFile ? { sub: subFile } : {}),
    rootSequences,
    subSequences: Math.max(1, options.subCallSlots ?? DEFAULT_SUB_CALL_SLOTS),
    ...(options.contextWindow !== undefined ? { requestedWindow: options.contextWindow } : {}),
    availableBytes: options.availableBytes ?? availableMemory(),
  });
  const threads = Math.max(1, options.threads ?? runtime.llama.cpuMathCores);
  if (threads > runtime.llama.maxThreads) runtime.llama.maxThreads = threads;
  const stopLog = options.onLog ? listenToLlamaLog((_level, message) => options.onLog!(message.trimEnd())) : () => undefined;

  const opened: Array<{ model: LlamaModel; context: LlamaContext }> = [];
  try {
    const [rootPlan, subPlan] = plan.models as [ModelPlan, ModelPlan | undefined];
    const root = await openContext(runtime, rootFile, rootPlan, threads, options, plan, signal);
    opened.push(root);
    const rootSlots = await sequenceSlots(runtime, root, rootPlan.sequences);
    let subSlots: SequenceSlot[];
    let subModel = root;
    if (subFile && subPlan) {
      subModel = await openContext(runtime, subFile, subPlan, threads, options, plan, signal);
      opened.push(subModel);
      subSlots = await sequenceSlots(runtime, subModel, subPlan.sequences);
    } else {
      subSlots = rootSlots.splice(rootSequences);
    }
    const testGrammar = options.testGrammar;
    const engine = (role: string, file: ModelFile, opened: Opened, slots: SequenceSlot[], window: number) =>
      new LlamaNodeEngine({
        runtime,
        model: opened.model,
        label: file.label,
        role,
        contextWindow: window,
        slots: new Slots(slots),
        ...(options.onRequest ? { onRequest: options.onRequest } : {}),
        ...(options.onPrefill ? { onPrefill: options.onPrefill } : {}),
        ...(testGrammar ? { testGrammar } : {}),
        ...(options.performanceTracking ? { readCounters: () => readCounters(runtime, opened.context) } : {}),
      });
    const rootEngine = engine("root", rootFile, root, rootSlots, rootPlan.window);
    const subEngine = engine("sub", subFile ?? rootFile, subModel, subSlots, (subPlan ?? rootPlan).window);
    return {
      root: rootEngine,
      sub: subEngine,
      plan,
      threads,
      describe: () => describe(runtime, plan, threads, rootEngine, subEngine, Boolean(subFile)),
      close: async () => {
        stopLog();
        await closeAll(opened);
      },
    };
  } catch (err) {
    stopLog();
    await closeAll(opened);
    throw err;
  }
}

interface Opened {
  model: LlamaModel;
  context: LlamaContext;
}

async function openContext(
  runtime: LlamaRuntime,
  file: ModelFile,
  plan: ModelPlan,
  threads: number,
  options: LocalModelOptions,
  memory: MemoryPlan,
  signal: AbortSignal | undefined,
): Promise<{ model: LlamaModel; context: LlamaContext }> {
  const errors: string[] = [];
  const stop = listenToLlamaLog((level, message) => {
    if (level === runtime.lib.LlamaLogLevel.error || level === runtime.lib.LlamaLogLevel.warn) errors.push(message.trim());
  });
  let model: LlamaModel;
  try {
    // On the CPU every layer stays in memory; Metal (Apple Silicon) decides itself what it offloads.
    const gpuLayers = runtime.llama.gpu === false ? 0 : "auto";
    const onLoadProgress = options.onLoadProgress;
    model = await runtime.llama.loadModel({
      modelPath: file.path,
      gpuLayers,
      ...(signal ? { loadSignal: signal } : {}),
      ...(onLoadProgress
        ? { onLoadProgress: (fraction: number) => onLoadProgress({ label: file.label, fraction, bytes: file.weightsBytes }) }
        : {}),
    });
  } catch (err) {
    throw loadRefusal(file, runtime, err, errors, signal);
  } finally {
    stop();
  }
  try {
    const context = await model.createContext({
      contextSize: plan.window,
      sequences: plan.sequences,
      threads,
      batchSize: 512,
      flashAttention: file.flashAttention,
      failedCreationRemedy: false,
      performanceTracking: options.performanceTracking === true,
    });
    return { model, context };
  } catch (err) {
    await model.dispose();
    throw contextRefusal(err, runtime, memory);
  }
}

async function sequenceSlots(
  runtime: LlamaRuntime,
  opened: { model: LlamaModel; context: LlamaContext },
  count: number,
): Promise<SequenceSlot[]> {
  const { LlamaChat, QwenChatWrapper } = runtime.lib;
  const slots: SequenceSlot[] = [];
  for (let id = 0; id < count; id++) {
    const sequence = opened.context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence });
    // Qwen3's template reads enable_thinking; node-llama-cpp's Qwen wrapper renders its "off"
    // (an empty <think></think>) with thoughts: "discourage". Other templates have no switch.
    const template = String(opened.model.fileInfo.metadata?.tokenizer?.chat_template ?? "");
    const wrapper = chat.chatWrapper;
    const chatWithoutThinking =
      wrapper instanceof QwenChatWrapper && template.includes("<think>")
        ? new LlamaChat({
            contextSequence: sequence,
            chatWrapper: new QwenChatWrapper({ thoughts: "discourage", variation: wrapper.variation }),
          })
        : chat;
    slots.push({ id, sequence, chat, chatWithoutThinking });
  }
  return slots;
}

function describe(
  runtime: LlamaRuntime,
  plan: MemoryPlan,
  threads: number,
  root: LlamaNodeEngine,
  sub: LlamaNodeEngine,
  separate: boolean,
): string[] {
  const [rootPlan] = plan.models;
  const lines = [
    `${runtime.version} on ${runtime.llama.gpu === false ? "the CPU" : `the CPU and ${runtime.llama.gpu}`}, ${threads} thread(s): ${root.model} (${mib(rootPlan?.costs.weightsBytes ?? 0)} of weights)`,
    `window ${groupDigits(plan.window)} tokens: ${plan.reason}`,
    `memory: ${plan.models.map(describeModelPlan).join("; ")} = ${mib(plan.totalBytes)} of ${mib(plan.availableBytes)} available`,
    separate
      ? `sub-calls: ${sub.model}, ${sub.maxConcurrency} slot(s), each its own KV sequence`
      : `sub-calls: the same model, ${sub.maxConcurrency} slot(s), each its own KV sequence beside the root's`,
  ];
  return lines;
}

const PERF_PROMPT = /prompt eval time\s*=\s*[\d.]+ ms\s*\/\s*(\d+) tokens/;
const PERF_EVAL = /\beval time\s*=\s*[\d.]+ ms\s*\/\s*(\d+) runs/;

/** llama.cpp prints its counters (and resets them) on request; they reach us as log lines. */
async function readCounters(runtime: LlamaRuntime, context: LlamaContext): Promise<LlamaCppCounters> {
  const lines: string[] = [];
  const stop = listenToLlamaLog((_level, message) => lines.push(message));
  const level = runtime.llama.logLevel;
  runtime.llama.logLevel = runtime.lib.LlamaLogLevel.info;
  try {
    await context.printTimings();
  } finally {
    runtime.llama.logLevel = level;
    stop();
  }
  const text = lines.join("\n");
  const prompt = PERF_PROMPT.exec(text);
  const evals = PERF_EVAL.exec(text.replace(PERF_PROMPT, ""));
  if (!prompt || !evals) throw new Error(`llama.cpp's counters were not printed (got: ${text.slice(0, 300)})`);
  return { promptEvalTokens: Number(prompt[1]), evalRuns: Number(evals[1]) };
}

async function closeAll(opened: Array<{ model: LlamaModel; context: LlamaContext }>): Promise<void> {
  for (const { model, context } of opened.splice(0).reverse()) {
    await context.dispose().catch(() => undefined);
    await model.dispose().catch(() => undefined);
  }
}
