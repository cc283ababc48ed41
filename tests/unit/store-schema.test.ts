// The stored schema and its migrations (src/store): a database written by the page before the
// schema had versions (v1: every exchange whole, steps and all) opens unchanged after the
// upgrade, its steps moved apart; a reopened session reads the records only; a record saved
// without its steps never loses them. IndexedDB is fake-indexeddb's (the API, in memory).
import "fake-indexeddb/auto";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { exchangeOf, fillSteps } from "../../src/app/run-view.ts";
import type { CellView, SubcallView, TurnView } from "../../src/core/turn-view.ts";
import type { IterationRecord } from "../../src/core/types.ts";
import { SessionStore } from "../../src/store/db.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { SCHEMA_VERSION, type StoredExchange } from "../../src/store/schema.ts";

let names = 0;
const freshName = () => `rlm-test-${++names}`;

function iteration(n: number, at: string, extra: Partial<IterationRecord> = {}): IterationRecord {
  return {
    type: "iteration",
    iteration: n,
    timestamp: at,
    prompt: [{ role: "user", content: `the whole conversation up to turn ${n} `.repeat(50) }],
    response: `turn ${n}`,
    code_blocks: [],
    final_answer: null,
    iteration_time: 2,
    ...extra,
  };
}

const turn = (index: number): TurnView => ({ index, text: `turn ${index}`, done: true, cells: [], notices: [] });

/** An exchange as the page before this schema stored it: the view, with every step in it. */
function v1Exchange(id: string, startedAt: number, status: StoredExchange["status"] = "answered"): StoredExchange & { turns: TurnView[] } {
  return {
    id,
    question: `question ${id}`,
    startedAt,
    endedAt: startedAt + 10_000,
    status,
    answer: status === "answered" ? `answer ${id}` : "",
    turns: [turn(0), turn(1)],
    iterations: [iteration(1, "2026-11-20T10:00:00.000Z"), iteration(2, "2026-11-20T10:00:05.000Z")],
    notices: [],
    usage: {
      models: {},
      rootCalls: 2,
      subcalls: 0,
      generationMs: 0,
      replMs: 0,
      subcallMs: 0,
      totalMs: 0,
    } as unknown as StoredExchange["usage"],
  };
}

/** A version-1 database, written the way the page wrote it then. */
async function writeV1(name: string, exchanges: Array<StoredExchange & { turns: TurnView[] }>): Promise<void> {
  const db = await openDB(name, 1, {
    upgrade(d) {
      d.createObjectStore("sessions", { keyPath: "id" }).createIndex("updatedAt", "updatedAt");
      d.createObjectStore("documents", { keyPath: ["sessionId", "path"] }).createIndex("sessionId", "sessionId");
      d.createObjectStore("exchanges", { keyPath: "id" }).createIndex("sessionId", "sessionId");
    },
  });
  await db.put("sessions", { id: "s1", title: "Old session", createdAt: 1, updatedAt: 2, documents: [] });
  for (const e of exchanges) await db.put("exchanges", { ...e, sessionId: "s1" });
  db.close();
}

describe("the stored schema", () => {
  it("has one numbered migration per version", () => {
    expect(MIGRATIONS).toHaveLength(SCHEMA_VERSION);
  });

  it("opens a version-1 database unchanged: the same questions, answers and steps, the steps apart", async () => {
    const name = freshName();
    const old = [v1Exchange("a", 1000), v1Exchange("b", 2000, "stopped")];
    await writeV1(name, old);

    const store = await SessionStore.open(name);
    expect((await store.listSessions()).map((s) => s.title)).toEqual(["Old session"]);
    const reopened = await store.loadExchanges("s1");
    // What a reopened session reads: every record, no step.
    expect(reopened.map((e) => [e.id, e.question, e.answer, e.status])).toEqual([
      ["a", "question a", "answer a", "answered"],
      ["b", "question b", "", "stopped"],
    ]);
    for (const e of reopened) {
      expect(e.iterations).toEqual([]);
      expect(e.steps).toEqual({
        turns: 2,
        anyTurnDone: true,
        iterations: 2,
        continuable: true,
        lastActivityAt: Date.parse("2026-11-20T10:00:07.000Z"),
      });
    }
    // The steps are all there, read when asked for.
    for (const e of old) expect(await store.loadSteps(e.id)).toEqual({ iterations: e.iterations });
    store.close();

    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    expect([...raw.objectStoreNames].sort()).toEqual(["documents", "exchanges", "sessions", "steps"]);
    const record = await raw.get("exchanges", "a");
    expect(record).not.toHaveProperty("turns");
    expect(record).not.toHaveProperty("iterations");
    raw.close();
  });

  it("a record saved without its steps (renamed, marked cut off) keeps the stored steps", async () => {
    const store = await SessionStore.open(freshName());
    const { turns: _view, ...live } = v1Exchange("c", 3000);
    await store.saveExchange("s1", live);
    const [reopened] = await store.loadExchanges("s1");
    await store.saveExchange("s1", { ...reopened!, status: "interrupted" });
    expect((await store.loadExchanges("s1"))[0]).toMatchObject({ status: "interrupted", steps: { turns: 2, iterations: 2 } });
    expect(await store.loadSteps("c")).toEqual({ iterations: live.iterations });
    // Deleting the session deletes its steps with it.
    await store.deleteSession("s1");
    expect(await store.loadSteps("c")).toBeNull();
    store.close();
  });

  it("a run of the fallback or a direct answer alone is not continuable", async () => {
    const store = await SessionStore.open(freshName());
    const direct = {
      ...v1Exchange("d", 4000, "stopped"),
      iterations: [iteration(1, "2026-11-20T10:00:00.000Z", { direct: { shown_chars: 1, total_chars: 1 } })],
    };
    const { turns: _view, ...stored } = direct;
    await store.saveExchange("s1", stored);
    expect((await store.loadExchanges("s1"))[0]?.steps).toMatchObject({ continuable: false, iterations: 1 });
    store.close();
  });

  it("opens a version-2 database with the same steps, derived from its trajectory records alone", async () => {
    const v2 = JSON.parse(readFileSync(new URL("../fixtures/stored-v2/database.json", import.meta.url), "utf8")) as V2Dump;
    const name = freshName();
    await writeV2(name, v2);
    const store = await SessionStore.open(name);
    const reopened = (await store.loadExchanges("s-v2")).map(exchangeOf);
    expect(reopened.map((e) => [e.id, e.answer, e.status, e.steps?.turns])).toEqual(
      v2.exchanges.map((e) => [e.id, e.answer, e.status, e.steps.turns]),
    );
    for (const exchange of reopened) {
      const old = v2.steps.find((s) => s.id === exchange.id)!;
      const steps = await store.loadSteps(exchange.id);
      expect(steps).not.toHaveProperty("turns"); // one form: the records
      fillSteps(exchange, steps);
      expect(exchange.turns.map(seen)).toEqual(old.turns.map((t) => seen(cutOff(t))));
      // The trajectory (exports, Continue) is the records that were there, nothing more.
      expect(exchange.iterations.map((it) => [it.iteration, it.prompt, it.response])).toEqual(
        old.iterations.map((it) => [it.iteration, it.prompt, it.response]),
      );
    }
    store.close();
    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    for (const row of await raw.getAll("steps")) expect(row).not.toHaveProperty("turns");
    raw.close();
  });
});

interface V2Dump {
  sessions: unknown[];
  exchanges: Array<StoredExchange & { sessionId: string; steps: { turns: number } }>;
  steps: Array<{ id: string; sessionId: string; turns: TurnView[]; iterations: IterationRecord[] }>;
}

async function writeV2(name: string, dump: V2Dump): Promise<void> {
  const db = await openDB(name, 2, {
    upgrade(d) {
      d.createObjectStore("sessions", { keyPath: "id" }).createIndex("updatedAt", "updatedAt");
      d.createObjectStore("documents", { keyPath: ["sessionId", "path"] }).createIndex("sessionId", "sessionId");
      d.createObjectStore("exchanges", { keyPath: "id" }).createIndex("sessionId", "sessionId");
      d.createObjectStore("steps", { keyPath: "id" }).createIndex("sessionId", "sessionId");
    },
  });
  for (const s of dump.sessions) await db.put("sessions", s);
  for (const e of dump.exchanges) await db.put("exchanges", e);
  for (const s of dump.steps) await db.put("steps", s);
  db.close();
}

/** What a person sees of a turn (TurnList, TurnTimeline, the totals): not the live-only clocks, not the ids. */
function seen(turn: TurnView): unknown {
  const { index, text, done, usage, durationMs, notices, cells } = turn;
  return { index, text, done, usage, durationMs, notices, cells: cells.map(seenCell) };
}
function seenCell({ index, code, result, subcalls }: CellView): unknown {
  return { index, code, result, subcalls: subcalls.map(seenCall) };
}
function seenCall({ id: _id, child, ...rest }: SubcallView): unknown {
  return { ...rest, child: child.map(seen) };
}

/**
 * A turn the reload cut off, as it reads now: the run is over, so its running cell reads as
 * interrupted and its unanswered call as failed, not "running…". Its code and prompts stay.
 */
function cutOff(turn: TurnView): TurnView {
  const call = (s: SubcallView): SubcallView =>
    s.response === undefined
      ? {
          ...s,
          response: "",
          error: "The run was cut off before this call was answered.",
          durationMs: 0,
          usage: { promptTokens: 0, completionTokens: 0 },
        }
      : s;
  const interrupted = { stdout: "", stderr: "", final_answer: null, locals: {}, execution_time: 0, error: null, interrupted: true };
  return { ...turn, cells: turn.cells.map((c) => ({ ...c, result: c.result ?? interrupted, subcalls: c.subcalls.map(call) })) };
}
