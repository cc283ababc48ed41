// The stored schema's history, one numbered migration per version (schema.ts says what the
// current version holds). IndexedDB runs the ones a database has not had yet, in order, inside
// its upgrade transaction, so a session saved by any earlier page opens as the current page
// expects, and an interrupted upgrade leaves the database as it was.
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from "idb";
import { recordOfTurn, unrecordedTurns } from "../core/turn-record.ts";
import type { RunSteps, TurnView } from "../core/turn-view.ts";
import type { IterationRecord } from "../core/types.ts";
import { splitExchange, summarizeSteps, type ExchangeRecord, type StoredExchange } from "./schema.ts";
import type { SessionRecord } from "./types.ts";

/**
 * A document as IndexedDB holds it: a Blob where the engine stores Blobs, else its bytes.
 * WebKit refuses Blobs in ephemeral sessions (Safari private windows, WebKitGTK automation:
 * "Error preparing Blob/File data to be stored in object store").
 */
export type DocumentRow = { sessionId: string; path: string } & ({ blob: Blob } | { bytes: ArrayBuffer; type: string });

/** A question's record (v2: without its steps; v1 rows held the steps too). */
export type ExchangeRow = ExchangeRecord & { sessionId: string };
/** A question's steps, by the question's id (v2; since v3 its trajectory records only). */
export type StepsRow = { id: string; sessionId: string } & RunSteps;
/**
 * The steps as versions 1 and 2 kept them: the turns as shown beside the records. Those turns
 * had the shape the page's TurnView still has; a change to TurnView must freeze a copy here.
 */
type TwoFormSteps = { turns?: TurnView[]; iterations?: IterationRecord[] };

export interface RlmDb extends DBSchema {
  sessions: { key: string; value: SessionRecord; indexes: { updatedAt: number } };
  documents: { key: [string, string]; value: DocumentRow; indexes: { sessionId: string } };
  exchanges: { key: string; value: ExchangeRow; indexes: { sessionId: string } };
  steps: { key: string; value: StepsRow; indexes: { sessionId: string } };
}

type Upgrade = IDBPTransaction<RlmDb, StoreNames<RlmDb>[], "versionchange">;
type Migration = (db: IDBPDatabase<RlmDb>, tx: Upgrade) => Promise<void> | void;

/** MIGRATIONS[v - 1] takes a database from version v - 1 to version v (SCHEMA_VERSION of them). */
export const MIGRATIONS: readonly Migration[] = [
  // 1: sessions, their documents' bytes, and every exchange whole (the page's view of each run).
  (db) => {
    db.createObjectStore("sessions", { keyPath: "id" }).createIndex("updatedAt", "updatedAt");
    db.createObjectStore("documents", { keyPath: ["sessionId", "path"] }).createIndex("sessionId", "sessionId");
    db.createObjectStore("exchanges", { keyPath: "id" }).createIndex("sessionId", "sessionId");
  },
  // 2: each exchange's steps (turns and visualizer records) move to a store of their own, and
  // the record keeps what they come to: reopening a session reads the records only.
  async (db, tx) => {
    db.createObjectStore("steps", { keyPath: "id" }).createIndex("sessionId", "sessionId");
    const steps = tx.objectStore("steps");
    for (let cursor = await tx.objectStore("exchanges").openCursor(); cursor; cursor = await cursor.continue()) {
      const { sessionId, turns, ...whole } = cursor.value as unknown as StoredExchange & TwoFormSteps & { sessionId: string };
      const split = splitExchange({ ...whole, iterations: whole.iterations ?? [] });
      // Kept in the two forms v2 had; the next migration makes them one.
      if (split.steps) await steps.put({ id: whole.id, sessionId, ...split.steps, turns } as StepsRow);
      await cursor.update({ ...split.record, sessionId });
    }
  },
  // 3: the trajectory records are a question's only steps: what only the page's turns held (the
  // reply's tokens and time, notes, cell errors, rlm_query) moves into the records, and a turn
  // that had no record (cut off) becomes one of `unfinished`; the view is derived from them.
  async (_db, tx) => {
    const exchanges = tx.objectStore("exchanges");
    for (let cursor = await tx.objectStore("steps").openCursor(); cursor; cursor = await cursor.continue()) {
      const { id, sessionId, turns = [], iterations = [] } = cursor.value as StepsRow & TwoFormSteps;
      const one = oneForm(turns, iterations);
      await cursor.update({ id, sessionId, ...one });
      const record = await exchanges.get(id);
      if (record) await exchanges.put({ ...record, steps: { ...record.steps, ...summarizeSteps(one) } });
    }
  },
];

/** A v2 question's two forms of steps as one: each record with what its turn showed, and the turns no record stands for. */
function oneForm(turns: readonly TurnView[], iterations: readonly IterationRecord[]): RunSteps {
  const byRecord = new Map(turns.map((t) => [t.index + 1, t]));
  const records = iterations.map((it) => {
    const turn = byRecord.get(it.iteration);
    return turn ? recordOfTurn(turn, it) : it;
  });
  const unfinished = unrecordedTurns(turns, iterations);
  return { iterations: records, ...(unfinished.length ? { unfinished } : {}) };
}

/** Runs the migrations a database at `from` has not had, in order. */
export async function migrate(db: IDBPDatabase<RlmDb>, from: number, tx: Upgrade): Promise<void> {
  for (let version = from; version < MIGRATIONS.length; version++) await MIGRATIONS[version]!(db, tx);
}
