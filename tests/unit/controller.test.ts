// The page's controller without a browser: an in-memory store, a stand-in REPL per session, the
// real engine manager against the scripted OpenAI-compatible server, and a fake file reader.
// What it checks is what the page shows and keeps: answers, saved state, one sandbox per session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppController, type AppDeps } from "../../src/app/controller.svelte.ts";
import type { IngestFiles } from "../../src/app/documents.ts";
import { EngineManager } from "../../src/app/engines.svelte.ts";
import { DEFAULT_SETTINGS } from "../../src/app/settings.ts";
import { VANILLA_SYSTEM_PROMPT } from "../../src/core/direct.ts";
import { canContinue, stepsOf, stepsUnread } from "../../src/app/run-view.ts";
import { MemoryStore } from "../../src/store/memory.ts";
import type { SessionRecord } from "../../src/store/types.ts";
import type { IngestInput } from "../../src/ingest/index.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192 });
});
afterAll(async () => server?.close());
beforeEach(() => {
  server.requests.length = 0;
});

/** Reads "files" whose content is their text (a PDF if it starts so): enough for the controller's part. */
const ingest: IngestFiles = async (inputs, taken) => {
  const used = new Set(taken);
  const documents = await Promise.all(
    inputs.map(async (input) => {
      const text = await input.file.text();
      const name = (input.file as File).name;
      const path = used.has(name) ? `${name} (2)` : name;
      used.add(path);
      const meta = {
        path,
        name: path,
        kind: text.startsWith("%PDF-") ? "pdf" : "text",
        sourceBytes: text.length,
        chars: text.length,
        tokensEstimate: 1,
        encoding: "utf-8",
        preview: text,
      };
      return { meta, blob: new Blob([text]) };
    }),
  );
  return { documents, problems: [] };
};

const file = (name: string, text: string): IngestInput => ({ file: new File([text], name) });

interface Harness {
  app: AppController;
  store: MemoryStore;
  repls: ScriptedRepl[];
}

function harness(
  store = new MemoryStore(),
  extra: {
    baseUrl?: string;
    addDelayMs?: number;
    failStarts?: number;
    download?: AppDeps["download"];
    /** Storage opens only once this settles (a slow IndexedDB on a busy machine). */
    storageOpens?: Promise<void>;
  } = {},
): Harness {
  const repls: ScriptedRepl[] = [];
  // The person's saved settings: the scripted server as an OpenAI-compatible endpoint.
  const saved = structuredClone(DEFAULT_SETTINGS);
  saved.backend = "openai";
  saved.openai = { ...saved.openai, baseUrl: extra.baseUrl ?? server.baseUrl, model: "root-model" };
  // mode=rlm: these runs script the RLM loop; auto mode would answer their tiny documents directly.
  saved.run.mode = "rlm";
  const deps: AppDeps = {
    openStore: async () => {
      await extra.storageOpens;
      return store;
    },
    createRepl: (onStatus) => {
      const failing = repls.length < (extra.failStarts ?? 0);
      const r = new ScriptedRepl({
        onStatus,
        ...(extra.addDelayMs ? { addDelayMs: extra.addDelayMs } : {}),
        ...(failing ? { failStart: "Python could not start." } : {}),
      });
      repls.push(r);
      return r;
    },
    ingest,
    engines: (settings) => new EngineManager(settings),
    settingsStorage: { getItem: () => JSON.stringify(saved), setItem: () => undefined },
    download: extra.download ?? (() => undefined),
  };
  return { app: new AppController(deps), store, repls };
}

describe("the page's controller", () => {
  it("starts on a new session, reads files, answers, and keeps the answer in the store", async () => {
    const { app, store, repls } = harness();
    await app.start();
    expect(app.view.record?.title).toBe("New session");
    expect(repls).toHaveLength(1);
    await app.addFiles([file("notes.txt", "the answer is 42")]);
    expect(app.view.record?.documents.map((d) => d.path)).toEqual(["notes.txt"]);
    expect(repls[0]!.docs.get("notes.txt")).toBe("the answer is 42");
    server.scripts.root = code("FINAL('42')");
    await app.ask("What is the answer?");
    const [exchange] = app.view.exchanges;
    expect(exchange).toMatchObject({ status: "answered", answer: "42" });
    const id = app.view.record!.id;
    expect((await store.loadExchanges(id))[0]).toMatchObject({ status: "answered", answer: "42" });
    expect((await store.loadDocuments(id)).map((d) => d.path)).toEqual(["notes.txt"]);
    expect((await store.getSession(id))?.title).toBe("What is the answer?");
  });

  it("keeps a file chosen while the page still opens its storage: it is added once the session is open", async () => {
    // The page lists its pickers at once; storage and the first session open after it (seconds on
    // a busy machine). A file picked then was dropped without a word (a fresh-clone run's e2e
    // waited 60 s for it to be listed).
    let openStorage!: () => void;
    const storageOpens = new Promise<void>((resolve) => (openStorage = resolve));
    const { app, store } = harness(new MemoryStore(), { storageOpens });
    const starting = app.start();
    const adding = app.addFiles([file("early.txt", "picked before the session opened")]);
    openStorage();
    await Promise.all([starting, adding]);
    expect(app.view.record?.documents.map((d) => d.path)).toEqual(["early.txt"]);
    expect((await store.loadDocuments(app.view.record!.id)).map((d) => d.path)).toEqual(["early.txt"]);
  });

  it("compare mode answers directly beside the run, with the session's engine and sampling, from the stored bytes", async () => {
    const { app, repls } = harness();
    await app.start();
    app.updateSettings({ ...app.settings, compare: true, run: { ...app.settings.run, temperature: 0.3, seed: 7 } });
    await app.addFiles([file("notes.txt", "the answer is 42")]);
    server.scripts.root = (req) => (req.messages[0]?.content === VANILLA_SYSTEM_PROMPT ? "42, read directly" : code("FINAL('42')"));
    await app.ask("What is the answer?");
    const [exchange] = app.view.exchanges;
    expect(exchange).toMatchObject({ status: "answered", answer: "42", compare: { status: "done", answer: "42, read directly" } });
    expect(exchange!.compare).toMatchObject({ shownChars: "the answer is 42".length, totalChars: "the answer is 42".length });
    const direct = server.requests.filter((r) => r.messages[0]?.content === VANILLA_SYSTEM_PROMPT);
    expect(direct).toHaveLength(1);
    expect(direct[0]!.lastUser).toContain("the answer is 42");
    expect(direct[0]!.body).toMatchObject({ temperature: 0.3, seed: 7 });
    // Read from the stored bytes, not from Python (which the run beside it was using).
    expect(repls[0]!.cells.join("\n")).not.toContain("print(context)");
  });

  it("Python that failed to start can be restarted from the page, with the documents back", async () => {
    const { app, repls } = harness(new MemoryStore(), { failStarts: 1 });
    await app.start();
    await app.addFiles([file("notes.txt", "the answer is 42")]);
    await expect.poll(() => app.view.replStatus.state).toBe("failed");
    await app.restartPython();
    expect(repls).toHaveLength(2);
    expect(repls[0]!.closed).toBe(true);
    await expect.poll(() => app.view.replStatus.state).toBe("ready");
    await expect.poll(() => repls[1]!.docs.get("notes.txt")).toBe("the answer is 42");
  });

  it("gives every session its own REPL, and deleting a session ends it", async () => {
    const { app, repls } = harness();
    await app.start();
    const first = app.view.record!.id;
    await app.addFiles([file("a.txt", "one")]);
    await app.newSession();
    expect(repls).toHaveLength(2);
    expect(repls[1]!.docs.size).toBe(0); // nothing of the first session's documents
    await app.openSession(first);
    expect(repls).toHaveLength(2); // switching back reuses the first session's live REPL
    await app.deleteSession(first);
    expect(repls[0]!.closed).toBe(true);
    expect(repls[1]!.closed).toBe(false);
    expect(app.view.record?.id).not.toBe(first);
  });

  it("a run that fails before its first turn is saved as Failed and stays so after a reload", async () => {
    const store = new MemoryStore();
    const { app } = harness(store, { baseUrl: "http://127.0.0.1:9/v1" });
    await app.start();
    await app.addFiles([file("a.txt", "text")]);
    await app.ask("Anyone there?");
    expect(app.view.exchanges[0]).toMatchObject({ status: "failed" });
    expect(app.view.exchanges[0]?.message).toContain("Could not reach the model server");
    // A new page on the same storage, as after a reload.
    const again = harness(store).app;
    await again.start();
    const [saved] = again.view.exchanges;
    expect(saved?.status).toBe("failed");
    expect(saved?.endedAt).toBeTypeOf("number");
  });

  it("a question asked right after a reload waits for the documents to reach Python", async () => {
    const store = new MemoryStore();
    const before = harness(store);
    await before.app.start();
    await before.app.addFiles([file("slow.txt", "slow text")]);
    // A new page on the same storage: the documents load into a new REPL slowly, and the
    // question is asked at once.
    const { app } = harness(store, { addDelayMs: 300 });
    await app.start();
    server.scripts.root = (req) => (req.firstUser.includes("9 characters") ? code("FINAL('saw it')") : code("FINAL('context was empty')"));
    await app.ask("Did you see it?");
    expect(app.view.exchanges[0]?.answer).toBe("saw it");
  });

  it("Stop ends a run whose cell hangs, and the next question works", async () => {
    const { app } = harness();
    await app.start();
    await app.addFiles([file("a.txt", "text")]);
    server.scripts.root = (req) => (req.firstUser.includes("Spin") ? code("HANG") : code("FINAL('next one')"));
    const pending = app.ask("Spin");
    while (!app.view.exchanges[0]?.turns[0]?.cells.length) await new Promise((r) => setTimeout(r, 10));
    app.stop();
    await pending;
    expect(app.view.exchanges[0]?.status).toBe("stopped");
    expect(app.view.running).toBe(false);
    await app.ask("And now?");
    expect(app.view.exchanges[1]?.answer).toBe("next one");
  });

  it("a reopened session reads its questions' records only, and a question's steps when they are shown, exported or continued", async () => {
    const store = new MemoryStore();
    const first = harness(store);
    await first.app.start();
    await first.app.addFiles([file("a.txt", "apples")]);
    // A run stopped in its second turn: Continue can go on from it.
    server.scripts.root = (req) => code(req.turn === 0 ? "x = 3\nprint(x)" : "HANG");
    const asking = first.app.ask("Count the apples?");
    await expect.poll(() => first.repls[0]!.cells.some((c) => c.includes("HANG"))).toBe(true);
    first.app.stop();
    await asking;
    const ran = first.app.view.exchanges[0]!;
    expect(ran.status).toBe("stopped");
    const shown = { turns: ran.turns.length, iterations: ran.iterations.length };
    expect(shown.iterations).toBeGreaterThan(0);

    // A reload: the question's record, not its steps; what they hold is known all the same.
    const downloads: Array<{ name: string; content: string }> = [];
    const second = harness(store, { download: (name, content) => downloads.push({ name, content }) });
    await second.app.start();
    const reopened = second.app.view.exchanges[0]!;
    expect(reopened.turns).toEqual([]);
    expect(reopened.iterations).toEqual([]);
    expect(stepsOf(reopened)).toMatchObject({ ...shown, continuable: true });
    expect(canContinue(reopened)).toBe(true);
    await second.app.showSteps(reopened.id);
    expect(second.app.view.exchanges[0]!.turns).toHaveLength(shown.turns);
    expect(stepsUnread(second.app.view.exchanges[0]!)).toBe(false);

    // Another reload: the trajectory export reads the steps it needs.
    const third = harness(store, { download: (name, content) => downloads.push({ name, content }) });
    await third.app.start();
    await third.app.exports.trajectory();
    expect(downloads.at(-1)!.content.trim().split("\n")).toHaveLength(1 + shown.iterations); // metadata, then each turn

    // Continue, after a reload, goes on from the stored turns.
    let resumedAt = -1;
    server.scripts.root = (req) => {
      if (resumedAt < 0) resumedAt = req.turn;
      return code("FINAL('three apples')");
    };
    await third.app.continueRun(third.app.view.exchanges[0]!.id);
    expect(resumedAt).toBe(shown.iterations); // the stored turns were replayed to the model
    expect(third.app.view.exchanges[0]).toMatchObject({ status: "answered", answer: "three apples" });
    expect(third.app.view.exchanges[0]!.turns.length).toBeGreaterThan(shown.turns);
    // ...and what it stored is the whole run again.
    const stored = await store.loadSteps(third.app.view.exchanges[0]!.id);
    expect(stored?.iterations.length).toBe(shown.iterations + 1);
  });

  it("reopening a session after a reload restarts its Python with its documents and says the variables are gone", async () => {
    const store = new MemoryStore();
    const first = harness(store);
    await first.app.start();
    await first.app.addFiles([file("a.txt", "apples")]);
    server.scripts.root = code("FINAL('first')");
    await first.app.ask("First?");
    const second = harness(store);
    await second.app.start(); // opens the last session
    expect(second.app.notices.list.some((n) => /variables from earlier questions are gone/.test(n.text))).toBe(true);
    server.scripts.root = (req) => {
      expect(req.firstUser).toContain("their variables are gone");
      return code("FINAL('second')");
    };
    await second.app.ask("Second?");
    expect(second.app.view.exchanges.map((e) => e.answer)).toEqual(["first", "second"]);
    expect(second.repls[0]!.docs.get("a.txt")).toBe("apples");
    expect(second.repls[0]!.history).toEqual([{ question: "First?", answer: "first" }]);
  });

  it("a document is listed only once its bytes are stored: a reload meanwhile finds the session as it was", async () => {
    // Storing a document's bytes never finishes here, as when the tab closes during the write.
    class StallingStore extends MemoryStore {
      stalled = false;
      override async addDocuments(): Promise<void> {
        this.stalled = true;
        await new Promise(() => undefined);
      }
      async saveDocuments(): Promise<void> {
        this.stalled = true;
        await new Promise(() => undefined);
      }
    }
    const store = new StallingStore();
    const before = harness(store);
    await before.app.start();
    void before.app.addFiles([file("late.txt", "written too late")]);
    await expect.poll(() => store.stalled).toBe(true);
    expect(before.app.view.record?.documents).toEqual([]); // not listed while it is not stored
    expect(before.app.view.ingest).toMatchObject({ path: "late.txt", phase: "saving" }); // but the bar says what is happening
    const { app, repls } = harness(store);
    await app.start();
    expect(app.view.record?.documents).toEqual([]);
    expect(repls[0]!.docs.size).toBe(0);
  });

  it("a listed document whose bytes are missing is taken off the list and named, and unlisted bytes never reach Python", async () => {
    const store = new MemoryStore();
    const now = Date.now();
    const meta = (path: string) => ({ path, name: path, kind: "text", sourceBytes: 4, chars: 4, tokensEstimate: 1, preview: path });
    const record: SessionRecord = {
      id: "s1",
      title: "Old",
      createdAt: now,
      updatedAt: now,
      documents: [meta("kept.txt"), meta("lost.txt")],
    };
    // As an older version could leave it: lost.txt listed without bytes, gone.txt stored but no longer listed.
    await store.saveSession(record);
    await store.addDocuments(record, [
      { path: "kept.txt", blob: new Blob(["kept"]) },
      { path: "gone.txt", blob: new Blob(["gone"]) },
    ]);
    await store.saveSession(record);
    const { app, repls } = harness(store);
    await app.start();
    expect(app.view.record?.documents.map((d) => d.path)).toEqual(["kept.txt"]);
    expect(app.notices.list.some((n) => n.kind === "warning" && n.text.includes("“lost.txt”") && /Add it again/.test(n.text))).toBe(true);
    await expect.poll(() => [...repls[0]!.docs.keys()]).toEqual(["kept.txt"]);
    expect((await store.getSession("s1"))?.documents.map((d) => d.path)).toEqual(["kept.txt"]); // saved so: said once
  });

  it("documents reach Python with the kind ingest gave them, also after a reload; a kind this version does not know goes as text", async () => {
    const store = new MemoryStore();
    const before = harness(store);
    await before.app.start();
    await before.app.addFiles([file("scan", "%PDF-1.7 a PDF named without .pdf"), file("notes.txt", "plain")]);
    expect(Object.fromEntries(before.repls[0]!.kinds)).toEqual({ scan: "pdf", "notes.txt": "text" });
    // A later version's format, in a record it wrote: read as plain text, as the viewer reads it.
    const record = (await store.getSession(before.app.view.record!.id))!;
    await store.saveSession({ ...record, documents: record.documents.map((d) => (d.path === "notes.txt" ? { ...d, kind: "slides" } : d)) });
    const { app, repls } = harness(store);
    await app.start();
    await expect.poll(() => Object.fromEntries(repls[0]!.kinds)).toEqual({ scan: "pdf", "notes.txt": "text" });
  });

  it("documents reach Python after a reload in the order they were added", async () => {
    const store = new MemoryStore();
    const before = harness(store);
    await before.app.start();
    await before.app.addFiles([file("zeta.txt", "last letter")]);
    await before.app.addFiles([file("alpha.txt", "first letter")]);
    const { app, repls } = harness(store);
    await app.start();
    await expect.poll(() => [...repls[0]!.docs.keys()]).toEqual(["zeta.txt", "alpha.txt"]);
  });
});

describe("fresh tries and the fallback's question (issue 28 §3, §4)", () => {
  it("Replace whose new try ends without an answer keeps the earlier answer as a version to go back to", async () => {
    const store = new MemoryStore();
    const { app } = harness(store);
    await app.start();
    await app.addFiles([file("a.txt", "text")]);
    server.scripts.root = code("FINAL('the first answer')");
    await app.ask("Which one?");
    const first = app.view.exchanges[0]!;
    server.scripts.root = { text: "", status: 500, error: "the model server broke" };
    await app.askAgain(first.id, "Which one?", false);
    // The failed try is shown in its place; the answer it would have replaced is still there.
    expect(app.view.exchanges.map((e) => [e.status, !!e.setAside])).toEqual([
      ["answered", true],
      ["failed", false],
    ]);
    const stored = await store.loadExchanges(app.view.record!.id);
    expect(stored.map((e) => e.answer)).toContain("the first answer");
    await app.showVersion(app.view.exchanges[1]!.id, -1);
    expect(app.view.exchanges.find((e) => !e.setAside)?.answer).toBe("the first answer");
  });

  it("the run's question about the fallback waits in the exchange until the person answers", async () => {
    const { app } = harness();
    await app.start();
    await app.addFiles([file("a.txt", "The vault code is 7419.")]);
    app.updateSettings({ ...app.settings, run: { ...app.settings.run, fallbackMaxCalls: 1 } });
    server.scripts.root = "Let me think.";
    server.scripts.sub = (req) => (req.lastUser.includes("7419") ? "7419" : "NOT FOUND");
    const pending = app.ask("What is the code?");
    await expect.poll(() => app.view.exchanges[0]?.fallbackQuestion?.estimate.calls, { timeout: 10_000 }).toBe(2);
    expect(server.requests.filter((r) => !r.isRoot)).toHaveLength(0);
    app.answerFallback(app.view.exchanges[0]!.id, true);
    await pending;
    expect(app.view.exchanges[0]).toMatchObject({ status: "answered", answer: "7419", producedBy: "fallback" });
    expect(app.view.exchanges[0]?.fallbackQuestion).toBeUndefined();
  });
});
