// A long session as the page stored it before the schema had versions (IndexedDB version 1:
// every exchange whole, its turns and visualizer records inside), written on the app's origin
// before the app opens it. What a real RLM session weighs: a few kilobytes of answer per
// question, and megabytes of steps (each turn's prompt is the whole conversation so far, each
// sub-call's prompt a piece of the document, kept both in the turns and in the records).
import type { Page } from "playwright-core";
import { seedOldDatabase } from "../../tests/fixtures/old-database.ts";

export interface LongSession {
  exchanges: Array<Record<string, unknown>>;
  /** JSON size of the exchanges, bytes. */
  bytes: number;
}

const filler = (n: number, seed: number) => {
  const words = ["launch", "memo", "budget", "Tuesday", "report", "section", "the", "of", "value", "chunk", "review", "result"];
  let out = "";
  for (let i = 0; out.length < n; i++) out += `${words[(i * 7 + seed) % words.length]} `;
  return out.slice(0, n);
};

/** `count` questions of `turns` turns with `subcalls` sub-calls each; the answer of question k ends with END-k. */
export function longSession(count: number, turns = 12, subcalls = 6): LongSession {
  const exchanges: Array<Record<string, unknown>> = [];
  const started = Date.parse("2026-11-20T10:00:00.000Z");
  for (let k = 0; k < count; k++) {
    const at = started + k * 600_000;
    const calls = (t: number) =>
      Array.from({ length: subcalls }, (_, s) => ({
        id: `q${k}-t${t}-s${s}`,
        kind: "llm",
        model: "sub-model",
        prompt: `<<${filler(6000, k + t + s)}>> Is the launch date in this part?`,
        response: filler(300, s),
        durationMs: 900,
        usage: { promptTokens: 1700, completionTokens: 80 },
        child: [],
      }));
    const turnViews = Array.from({ length: turns }, (_, t) => ({
      index: t,
      text: `Turn ${t}: ${filler(1200, t)}`,
      done: true,
      durationMs: 2000,
      usage: { promptTokens: 2000 + t * 900, completionTokens: 300 },
      notices: [],
      cells: [
        {
          index: 0,
          code: `parts = [context[i:i + 6000] for i in range(0, len(context), 6000)]\nr${t} = llm_query_batched(parts[:${subcalls}])\nprint(r${t})`,
          result: {
            stdout: filler(3000, t),
            stderr: "",
            final_answer: null,
            locals: {},
            execution_time: 5,
            error: null,
            interrupted: false,
          },
          subcalls: calls(t),
        },
      ],
    }));
    const conversation: Array<{ role: string; content: string }> = [
      { role: "system", content: filler(4000, 1) },
      { role: "user", content: `Question: what happened to the launch, part ${k}?` },
    ];
    const iterations = turnViews.map((turn, t) => {
      const record = {
        type: "iteration",
        iteration: t,
        timestamp: new Date(at + t * 5000).toISOString(),
        prompt: [...conversation],
        response: turn.text,
        code_blocks: [
          {
            code: turn.cells[0]!.code,
            result: {
              stdout: turn.cells[0]!.result.stdout,
              stderr: "",
              locals: {},
              execution_time: 5,
              rlm_calls: turn.cells[0]!.subcalls.map((c) => ({
                root_model: "sub-model",
                prompt: c.prompt,
                response: c.response,
                usage_summary: { model_usage_summaries: {} },
                execution_time: 0.9,
                prompt_tokens: 1700,
                completion_tokens: 80,
              })),
              final_answer: null,
            },
          },
        ],
        final_answer: t === turns - 1 ? `The launch moved, part ${k}.` : null,
        iteration_time: 5,
      };
      conversation.push(
        { role: "assistant", content: turn.text },
        { role: "user", content: `Output: ${turn.cells[0]!.result.stdout.slice(0, 1500)}` },
      );
      return record;
    });
    exchanges.push({
      id: `long-${k}`,
      sessionId: "long-session",
      question: `What happened to the launch, part ${k}?`,
      startedAt: at,
      endedAt: at + turns * 5000,
      status: "answered",
      answer: `## Part ${k}\n\n${filler(2000, k)}\n\nEND-${k}`,
      notices: [],
      usage: {
        models: { "root-model": { calls: turns, promptTokens: 90_000, completionTokens: 4000 } },
        rootCalls: turns,
        subcalls: turns * subcalls,
      },
      turns: turnViews,
      iterations,
    });
  }
  return { exchanges, bytes: JSON.stringify(exchanges).length };
}

/** Writes `session` as a version-1 database on the app's origin, from a page that is not the app. */
export async function seedVersion1(page: Page, appUrl: string, session: LongSession): Promise<void> {
  await seedOldDatabase(page, appUrl, 1, {
    sessions: [{ id: "long-session", title: "A long session", createdAt: 1, updatedAt: Date.now(), documents: [] }],
    exchanges: session.exchanges,
  });
}
