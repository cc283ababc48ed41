// A session saved by the page before the stored schema had versions (IndexedDB version 1: every
// exchange whole, its steps and every prompt inside) opens in today's page unchanged: the
// question, its answer and sources at once, its steps when "Show steps" is pressed, its
// trajectory when exported. The database is written here as that page wrote it, before the app
// ever opens it.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";
import { seedOldDatabase } from "../fixtures/old-database.ts";
import { newPage, openaiUrl } from "./harness.ts";
import { useStack } from "./stack.ts";

const stack = useStack();

const STARTED = Date.parse("2026-11-20T10:00:00.000Z");

/** One exchange as the page stored it at version 1 (src/app/run-view.ts's Exchange, whole). */
const V1_EXCHANGE = {
  id: "old-1",
  sessionId: "old-session",
  question: "What does the old memo say about the launch?",
  startedAt: STARTED,
  endedAt: STARTED + 9000,
  status: "answered",
  answer: "The launch moved to **Tuesday**.",
  notices: [],
  usage: { models: { "root-model": { calls: 2, promptTokens: 900, completionTokens: 40 } }, rootCalls: 2, subcalls: 0 },
  turns: [
    {
      index: 0,
      text: "I will search the memo for the launch date.",
      done: true,
      durationMs: 1200,
      notices: [],
      cells: [
        {
          index: 0,
          code: "print(context[:80])",
          result: {
            stdout: "MEMO: the launch moved to Tuesday.\n",
            stderr: "",
            final_answer: null,
            locals: {},
            execution_time: 0.01,
            error: null,
            interrupted: false,
          },
          subcalls: [],
        },
      ],
    },
    { index: 1, text: "FINAL(The launch moved to Tuesday.)", done: true, durationMs: 800, notices: [], cells: [] },
  ],
  iterations: [0, 1].map((n) => ({
    type: "iteration",
    iteration: n + 1, // the page has always numbered its records from 1 (turn index + 1)
    timestamp: new Date(STARTED + n * 4000).toISOString(),
    prompt: [
      { role: "system", content: "You are an RLM." },
      { role: "user", content: "Question: What does the old memo say about the launch?" },
    ],
    response: n === 0 ? "I will search the memo for the launch date." : "FINAL(The launch moved to Tuesday.)",
    code_blocks: [],
    final_answer: n === 1 ? "The launch moved to **Tuesday**." : null,
    iteration_time: 1,
  })),
};

/** Every row of a database as the version-2 store wrote it (tests/fixtures/stored-v2). */
const V2_DUMP = JSON.parse(readFileSync(new URL("../fixtures/stored-v2/database.json", import.meta.url), "utf8")) as Record<
  "sessions" | "exchanges" | "steps",
  unknown[]
>;

/** Each steps row of the page's database: whether it still holds the turns beside the records. */
function stepsRows(page: Page): Promise<Array<{ id: string; turns: boolean; iterations: number }>> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("browser-rlm");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction("steps").objectStore("steps").getAll();
          all.onsuccess = () => {
            db.close();
            resolve(
              (all.result as Array<{ id: string; turns?: unknown; iterations: unknown[] }>).map((r) => ({
                id: r.id,
                turns: "turns" in r,
                iterations: r.iterations.length,
              })),
            );
          };
        };
      }),
  );
}

describe("sessions saved by an earlier page", () => {
  it("a version-1 session opens unchanged; its steps are read when shown, its trajectory when exported", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await seedOldDatabase(page, stack.app.url, 1, {
      sessions: [{ id: "old-session", title: "The old memo", createdAt: 1, updatedAt: Date.now(), documents: [] }],
      exchanges: [V1_EXCHANGE],
    });
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
    const exchange = page.locator("article.exchange").first();
    await exchange.getByText("What does the old memo say about the launch?").waitFor({ timeout: 60_000 });
    await exchange.getByRole("region", { name: "Answer", exact: true }).getByText("Tuesday").waitFor();
    await exchange.getByText("2 turns").waitFor();

    // Its steps were moved apart by the upgrade, and come back when shown.
    const steps = exchange.getByRole("button", { name: "Show steps (2)" });
    await steps.click();
    await exchange.getByText("I will search the memo for the launch date.").waitFor();
    await exchange.getByText("MEMO: the launch moved to Tuesday.").waitFor();

    const download = page.waitForEvent("download");
    await exchange.getByRole("button", { name: "Export trajectory (.jsonl)" }).click();
    const file = await (await download).path();
    const jsonl = (await import("node:fs")).readFileSync(file, "utf8");
    expect(visualizerProblems(jsonl)).toEqual([]);
    expect(jsonl.trim().split("\n")).toHaveLength(3);

    const stores = await page.evaluate(
      () =>
        new Promise<{ version: number; stores: string[] }>((resolve) => {
          const open = indexedDB.open("browser-rlm");
          open.onsuccess = () => {
            const db = open.result;
            resolve({ version: db.version, stores: [...db.objectStoreNames].sort() });
            db.close();
          };
        }),
    );
    expect(stores).toEqual({ version: 3, stores: ["documents", "exchanges", "sessions", "steps"] });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a version-2 session shows the same steps, now derived from its trajectory records alone", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await seedOldDatabase(page, stack.app.url, 2, V2_DUMP);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));

    const answered = page.locator("article.exchange", { hasText: "Which team shipped the launch, and when?" });
    await answered
      .getByRole("region", { name: "Answer", exact: true })
      .getByText("The platform team, on Tuesday.")
      .waitFor({ timeout: 60_000 });
    await answered.getByRole("button", { name: "Show steps (2)" }).click();
    // What only v2's stored turns held, now read from the records: the reply's tokens and time,
    // the window's note, which call was rlm_query, and the child run's turn.
    await answered.getByText("857 tokens").waitFor();
    await answered.getByText("Older turns were dropped to fit the model's window (1 so far)").waitFor();
    await answered.getByText("MEMO: the platform team shipped the launch.").waitFor();
    await answered.getByText("rlm_query → sub-model").waitFor();
    await answered.getByText("llm_query → sub-model").first().waitFor();

    // The run a reload cut off keeps the turn it was in: its reply and its cell's code.
    const cut = page.locator("article.exchange", { hasText: "Summarise the risks." });
    await cut.getByRole("button", { name: "Show steps (2)" }).click();
    await cut.getByText("Now I will ask about each risk.").waitFor();
    await cut.getByText("for r in risks: print(llm_query(r))").first().waitFor();
    await cut.getByLabel("stdout").getByText("12").first().waitFor();

    expect(await stepsRows(page)).toEqual([
      { id: "ex-answered", turns: false, iterations: 2 },
      { id: "ex-cut-off", turns: false, iterations: 1 },
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
