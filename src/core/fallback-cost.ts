// Before the harness reads a document itself (the fallback, fallback.ts), what that will cost and
// whether the person is asked first (issue 28 §3: one Continue spent 47 sub-calls and 791K prompt
// tokens without a word). The estimate, the person's limits, the decision and the words of the
// question live here, once: the page and `rlm` only present them.
import { CHARS_PER_TOKEN } from "../engines/tokens.ts";
import type { Budgets } from "./budgets.ts";
import { mapPrompt, type FallbackPlan } from "./fallback.ts";
import { groupDigits } from "./numbers.ts";
import type { UsageSummary } from "./types.ts";

/**
 * ask: read without asking while the estimate is within the limits, ask above them (and, with
 * nobody to ask, do not read); always: never ask; never: never read.
 */
export type FallbackMode = "ask" | "always" | "never";
export const FALLBACK_MODES: readonly FallbackMode[] = ["ask", "always", "never"];

export interface FallbackPolicy {
  mode: FallbackMode;
  /** Helper-model calls a reading may make without asking. */
  maxCalls: number;
  /** Tokens (sent and written) a reading may use without asking. */
  maxTokens: number;
}

/**
 * About a 100 KB document for a 4K-window model (12 parts), or a 350 KB one on a 32K-window
 * endpoint (100K tokens): a minute or so locally, cents on a paid API. Above that, ask.
 */
export const DEFAULT_FALLBACK_POLICY: FallbackPolicy = { mode: "ask", maxCalls: 12, maxTokens: 100_000 };

/** Where the helper model runs: a model on this device or a server near it costs time; a remote endpoint may bill. */
export interface FallbackEndpoint {
  /** "this device", or the endpoint's host ("api.example.com", "127.0.0.1:8000"). */
  name: string;
  local: boolean;
}

/** A private or loopback host: a server on this machine or its network. */
function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h === "::1" || h === "0.0.0.0") return true;
  const ip = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(h);
  if (!ip) return /^f[cd][0-9a-f]{2}:/.test(h) || h.startsWith("fe80:");
  const [a, b] = [Number(ip[1]), Number(ip[2])];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || (a === 169 && b === 254);
}

/** The helper model's engine as the estimate needs it: an HTTP engine has a base URL, a local one none. */
export function fallbackEndpoint(engine: { readonly baseUrl?: string }): FallbackEndpoint {
  if (!engine.baseUrl) return { name: "this device", local: true };
  try {
    const url = new URL(engine.baseUrl);
    return { name: url.host, local: isLocalHost(url.hostname) };
  } catch {
    return { name: engine.baseUrl, local: false };
  }
}

export interface FallbackEstimate {
  /** Pieces to read, and how many the whole document has (more when only the most relevant are read). */
  parts: number;
  partsTotal: number;
  /** Helper-model calls: one per piece and one to combine. */
  calls: number;
  /** Tokens sent (from the pieces' characters) and written (at this run's measured reply length). */
  tokens: number;
  /** Wall time at this run's measured speed per call; null when nothing was measured. */
  ms: number | null;
  endpoint: FallbackEndpoint;
}

export interface EstimateInput {
  plan: FallbackPlan;
  question: string;
  budgets: Pick<Budgets, "subPromptChars" | "subMaxTokens">;
  /** What this run has used so far: its calls give the speed and the length of a reply. */
  usage: UsageSummary;
  /** The helper model's label in `usage` (its own replies are the best measure when it has made calls). */
  subModel: string;
  /** Calls in flight at once. */
  concurrency: number;
  endpoint: FallbackEndpoint;
}

/** A combining call's prompt: the question and one line per piece that held an answer (at most a prompt's worth). */
const COMBINE_LINE_CHARS = 200;

export function estimateFallback(i: EstimateInput): FallbackEstimate {
  const { refs, chunksTotal } = i.plan;
  const frame = mapPrompt(i.question, refs.length, refs.length, refs[0] ?? { doc: null, start: 0, end: 0 }, "").length;
  const mapChars = refs.reduce((n, r) => n + (r.end - r.start) + frame, 0);
  const combineChars = refs.length ? Math.min(i.budgets.subPromptChars, i.question.length + refs.length * COMBINE_LINE_CHARS) : 0;
  const calls = refs.length + (refs.length ? 1 : 0);
  const sent = Math.ceil((mapChars + combineChars) / CHARS_PER_TOKEN);
  const written = calls * replyTokens(i.usage, i.subModel, i.budgets.subMaxTokens);
  const perCall = msPerCall(i.usage);
  const ms = perCall === null ? null : Math.round(perCall * Math.ceil(calls / Math.max(1, i.concurrency)));
  return { parts: refs.length, partsTotal: chunksTotal, calls, tokens: sent + written, ms, endpoint: i.endpoint };
}

/** Tokens a reply takes: the helper's own average if it has answered in this run, else the run's, else the cap. */
function replyTokens(usage: UsageSummary, subModel: string, cap: number): number {
  const own = usage.models[subModel];
  const all = Object.values(usage.models).reduce((s, m) => ({ calls: s.calls + m.calls, out: s.out + m.completionTokens }), {
    calls: 0,
    out: 0,
  });
  const [calls, out] = own && usage.subcalls > 0 ? [own.calls, own.completionTokens] : [all.calls, all.out];
  return calls > 0 ? Math.min(cap, Math.ceil(out / calls)) : cap;
}

/** Milliseconds per model call in this run: its sub-calls' when there were any, else its root turns'. */
function msPerCall(usage: UsageSummary): number | null {
  if (usage.subcalls > 0 && usage.subcallMs > 0) return usage.subcallMs / usage.subcalls;
  if (usage.rootCalls > 0 && usage.generationMs > 0) return usage.generationMs / usage.rootCalls;
  return null;
}

/**
 * How a reading was decided: it ran within the limits, because the policy says always, or
 * because the person agreed; or it did not, because they declined, the policy says never, or it
 * was over the limits with nobody to ask.
 */
export type FallbackDecision = "within-limits" | "always" | "agreed" | "declined" | "never" | "over-limits";

/** Which of the limits the estimate is over, in words ("47 calls, over the limit of 12"), or null. */
export function overLimits(e: FallbackEstimate, policy: FallbackPolicy): string | null {
  const over: string[] = [];
  if (e.calls > policy.maxCalls) over.push(`${groupDigits(e.calls)} calls, over the limit of ${groupDigits(policy.maxCalls)}`);
  if (e.tokens > policy.maxTokens) over.push(`≈ ${compactCount(e.tokens)} tokens, over the limit of ${compactCount(policy.maxTokens)}`);
  return over.length ? over.join("; ") : null;
}

export type FallbackGate =
  { action: "run"; decision: "within-limits" | "always" } | { action: "ask" } | { action: "skip"; decision: "never" | "over-limits" };

/** Read now, ask first, or do not read. `canAsk`: someone is there to answer (a child RLM never asks). */
export function gateFallback(e: FallbackEstimate, policy: FallbackPolicy, canAsk: boolean): FallbackGate {
  if (policy.mode === "never") return { action: "skip", decision: "never" };
  if (policy.mode === "always") return { action: "run", decision: "always" };
  if (!overLimits(e, policy)) return { action: "run", decision: "within-limits" };
  return canAsk ? { action: "ask" } : { action: "skip", decision: "over-limits" };
}

/** What the person is asked, with everything the page and `rlm` need to say it. */
export interface FallbackQuestion {
  /** Why the model could not drive the run (the diagnosis), one sentence. */
  reason: string;
  estimate: FallbackEstimate;
  /** The limits it is over, in words. */
  over: string;
}

/** Asks the person; true to read. Stop aborts `signal` (the run then stops). */
export type FallbackAsker = (question: FallbackQuestion, signal: AbortSignal) => Promise<boolean>;

// --- words -----------------------------------------------------------------------------------

/** 791_234 → "791K"; 1_234_567 → "1.2M"; small numbers grouped. */
export function compactCount(n: number): string {
  if (n < 10_000) return groupDigits(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}K`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

/** 45_000 → "≈ 45 s"; 250_000 → "≈ 4 min"; rounded, since it is an estimate. */
export function roughDuration(ms: number): string {
  if (ms < 1000) return "under a second";
  if (ms < 90_000) return `≈ ${Math.round(ms / 1000)} s`;
  if (ms < 90 * 60_000) return `≈ ${Math.round(ms / 60_000)} min`;
  return `≈ ${(ms / 3_600_000).toFixed(1)} h`;
}

/** What would be read: "the whole document", "all 47 parts of the document", "the 64 most relevant of its 300 parts". */
export function readingWords(e: Pick<FallbackEstimate, "parts" | "partsTotal">): string {
  if (e.parts < e.partsTotal) return `the ${groupDigits(e.parts)} most relevant of the document's ${groupDigits(e.partsTotal)} parts`;
  return e.parts === 1 ? "the whole document" : `all ${groupDigits(e.parts)} parts of the document`;
}

/**
 * "48 calls (47 parts and 1 to combine), ≈ 791K tokens, ≈ 4 min": the time only when this run
 * measured a call. The calls say what they are: beside a button reading 18 parts, a bare
 * "19 calls" looked like a miscount (issue 34 #8).
 */
export function costWords(e: FallbackEstimate): string {
  const calls = `${groupDigits(e.calls)} call${e.calls === 1 ? "" : "s"}`;
  const split = e.parts > 1 && e.calls === e.parts + 1 ? ` (${groupDigits(e.parts)} parts and 1 to combine)` : "";
  const parts = [`${calls}${split}`, `≈ ${compactCount(e.tokens)} tokens`];
  if (e.ms !== null) parts.push(`${roughDuration(e.ms)} at this run's speed`);
  return parts.join(", ");
}

/** Where the calls go and what they cost there: time on this device or a local server, money on a paid endpoint. */
export function endpointWords(endpoint: FallbackEndpoint): string {
  if (endpoint.name === "this device") return "on the model on this device: it costs time, not money";
  if (endpoint.local) return `on ${endpoint.name}, a server on your machine or network: it costs time, not money`;
  return `on ${endpoint.name}: a paid endpoint bills every one of these tokens`;
}

/** The question in one paragraph (`rlm` prints it; the page lays the same parts out with buttons). */
export function questionWords(q: FallbackQuestion): string {
  return (
    `${q.reason} The harness can read ${readingWords(q.estimate)} with the helper model instead: ` +
    `${costWords(q.estimate)}, ${endpointWords(q.estimate.endpoint)}. That is ${q.over}.`
  );
}
