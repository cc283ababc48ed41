// One session, one sandbox (issue 11): attacks by model-written Python that tried to reach
// another session, outlive its own, lift the host's caps, wedge the app or mislead the person.
// The built app in Chromium; the scripted model server plays each attack cell, and the test
// checks what a person sees on the page and what the model server (the only place a sub-call
// can send data) received.
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl } from "../fixtures/scripted-server.ts";
import { REACHED_LINE, openSteps, startStack, subcallAnswered } from "./harness.ts";
import { useStack } from "./stack.ts";
import { asEnginePage } from "./engines/chromium.ts";
import { timeStop } from "./engines/index.ts";
import { QuestionScripts, ask, lastStatus, openApp, turnOutputs, uploadText, type AppPage } from "./sandbox/drive.ts";
import { installForgery, victimCell } from "./sandbox/forgeries.ts";
import { startVariantServer } from "./sandbox/variant-server.ts";
import { expectNothingFor, waitUntil } from "./waits.ts";

const scripts = new QuestionScripts();
// A long cell limit, so that a wedged worker found by the heartbeat is told apart from one
// stopped by the time limit.
const PARAMS = { maxIterations: "8", contextWindow: "131072", cellTimeout: "60" };
/** A rebuilt worker boots Python again; on this shared 2-core machine that can take a while. */
const PYTHON_BOOT_ALLOWANCE_MS = 30_000;

/**
 * The JavaScript heap each of this browser's processes may grow to, in MB. The runaway tests fill
 * a worker's heap until Chromium ends its process; at Chromium's own limit (gigabytes) that took
 * most of their time and pressed a shared machine's memory. Python's heap is WebAssembly memory,
 * outside this limit, and the largest string a test here makes is 60 MB.
 */
const JS_HEAP_MB = 512;

const stack = useStack(() =>
  startStack({ root: scripts.root, sub: (req) => `sub saw ${req.lastUser.length} chars`, contextWindow: 131072 }, [
    `--js-flags=--max-old-space-size=${JS_HEAP_MB}`,
  ]),
);

/** Arms the page to click its Stop button as soon as one is rendered (there must be none yet). */
async function stopWhenShown(page: Page): Promise<void> {
  await page.evaluate(() => {
    const stopButton = () => Array.from(document.querySelectorAll("button")).find((b) => b.textContent?.trim() === "Stop");
    if (stopButton()) throw new Error("A Stop button is already on the page: nothing to wait for");
    const observer = new MutationObserver(() => {
      const stop = stopButton();
      if (!stop) return;
      observer.disconnect();
      stop.click();
    });
    observer.observe(document.body, { subtree: true, childList: true });
  });
}

let tagSeq = 0;
/** Asks a question whose root turns are `cells` (then FINAL(final)), and returns each turn's output. */
async function run(page: Page, cells: string[], final = "done", timeoutMs = 90_000): Promise<string[]> {
  const tag = `[s11-${++tagSeq}]`;
  scripts.set(tag, [...cells.map((c) => repl(c)), repl(`FINAL(${JSON.stringify(final)})`)]);
  await ask(page, `${tag} Go`, final, timeoutMs);
  return turnOutputs(stack.server, tag);
}

async function newSession(page: Page): Promise<void> {
  await page.getByRole("button", { name: "+ New" }).click();
  try {
    await page.getByText("Drop files anywhere on this page").waitFor();
  } catch (err) {
    await page.screenshot({ path: "/tmp/new-session-failed.png", fullPage: true });
    throw err;
  }
}

async function pythonReady(page: Page): Promise<void> {
  await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
}

/** Python that walks the whole file system and reports every file holding `needle`. */
const findEverywhere = (needle: string) => `
import os
hits = []
for root, dirs, files in os.walk("/"):
    if root.startswith(("/proc", "/dev", "/sys", "/lib", "/usr")):
        dirs[:] = []
        continue
    for f in files:
        p = os.path.join(root, f)
        try:
            with open(p, "rb") as fh:
                if ${JSON.stringify(needle)}.encode() in fh.read(50_000_000):
                    hits.append(p)
        except Exception:
            pass
print("FOUND", hits)
print("INPUT", sorted(os.listdir("/input")) if os.path.exists("/input") else [])
`;

describe("a session's Python is its own", () => {
  it("another session cannot read its files, see its patches, listeners or module state, or be forged, even after it is deleted", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page, errors } = opened;
    try {
      const secret = `SECRET-${randomBytes(6).toString("hex")}`;
      // Session A: a secret document, and code that plants everything it can for later.
      await pythonReady(page);
      await uploadText(page, "memo-a.txt", `The vault code is ${secret}.`);
      const plantOut = await run(
        page,
        [
          [
            "import builtins, json, sys, js",
            "builtins.print = lambda *a, **k: None",
            "json.STOLEN = context",
            "sys.modules['planted_by_a'] = type(sys)('planted_by_a')",
            "sys.modules['planted_by_a'].context = context",
            "builtins.open = lambda *a, **k: (_ for _ in ()).throw(RuntimeError('open patched by A'))",
            "js.globalThis.PLANTED_BY_A = context",
          ].join("\n"),
          installForgery("raw-html", "FORGED-BY-A", "http://127.0.0.1:9"),
        ],
        "planted",
      );
      // (The forged reply to A's own last cell is dropped, so A may take one more turn.)
      expect(plantOut.length).toBeGreaterThanOrEqual(2);

      // Session B: its own document and harmless code that looks for A's traces.
      await newSession(page);
      await pythonReady(page);
      await uploadText(page, "memo-b.txt", "Nothing secret here.");
      const probe = [
        findEverywhere(secret),
        [
          "import json, sys, builtins, js",
          "print('JSON-STOLEN', hasattr(json, 'STOLEN'))",
          "print('MODULE', 'planted_by_a' in sys.modules)",
          "print('JS-GLOBAL', getattr(js.globalThis, 'PLANTED_BY_A', None) is not None)",
          "print('PRINT-WORKS', builtins.print is print)",
          `print(llm_query('everything B found: ' + str([hits, getattr(json, 'STOLEN', None)])))`,
        ].join("\n"),
        victimCell("raw-html"),
      ];
      const out = await run(page, probe, "looked");
      expect(out[0]).toContain("FOUND []");
      expect(out[0]).toContain("INPUT []"); // every mount is removed once Python has read it
      expect(out[0]).not.toContain(secret);
      expect(out[1]).toContain("JSON-STOLEN False");
      expect(out[1]).toContain("MODULE False");
      expect(out[1]).toContain("JS-GLOBAL False");
      expect(out[1]).toContain("PRINT-WORKS True");
      expect(out[2]).toContain("VICTIM raw-html");
      expect(out[2]).not.toContain("FORGED-BY-A");
      expect(await page.getByText("FORGED-BY-A").count()).toBe(0);
      // Nothing of A's reached B's model either.
      expect(
        stack.server.requests.some((r) => JSON.stringify(r.messages).includes(secret) && r.lastUser.includes("everything B found")),
      ).toBe(false);

      // Deleting A ends its Python; B still finds nothing of it.
      await page.getByRole("button", { name: /^Delete session .*\[s11-1\]/ }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("button", { name: /^Delete session .*\[s11-1\]/ }).waitFor({ state: "detached" });
      const again = await run(page, [findEverywhere(secret)], "still nothing");
      expect(again[0]).toContain("FOUND []");
      expect(await lastStatus(page)).toBe("Answered");
      expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 240_000);
});

describe("nothing outlives a session", () => {
  // Each API by name: every one must be unreachable from model code. A verdict line per API.
  const STORAGE_PROBES: Array<[string, string]> = [
    ["FileSystem API sync (TEMPORARY)", "js.webkitRequestFileSystemSync(0, 1024)"],
    ["FileSystem API sync (PERSISTENT)", "js.webkitRequestFileSystemSync(1, 1024)"],
    ["FileSystem API sync URL", "js.webkitResolveLocalFileSystemSyncURL('filesystem:x')"],
    ["FileSystem API async", "js.webkitRequestFileSystem(0, 1024)"],
    ["IndexedDB", "js.indexedDB.open('planted')"],
    ["Cache Storage", "await js.caches.open('planted')"],
    ["OPFS", "await js.navigator.storage.getDirectory()"],
    ["navigator.storage", "await js.navigator.storage.estimate()"],
    ["storage buckets", "await js.navigator.storageBuckets.open('planted')"],
    ["BroadcastChannel", "js.BroadcastChannel.new('planted')"],
    ["SharedWorker", "js.SharedWorker.new('data:text/javascript,1')"],
    ["service worker", "await js.navigator.serviceWorker.getRegistrations()"],
    ["cookies", "await js.cookieStore.set('planted', '1')"],
    ["Web Locks", "await js.navigator.locks.request('planted', lambda l: None)"],
    ["close the worker", "js.close()"],
  ];
  const probeCell = [
    "import js",
    "async def _probe(name, attempt):",
    "    try:",
    "        await attempt()",
    "        print('REACHABLE', name)",
    "    except BaseException as e:",
    "        print('BLOCKED', name, type(e).__name__)",
    ...STORAGE_PROBES.flatMap(([name, expr], i) => [
      `async def _p${i}():`,
      `    return ${expr}`,
      `await _probe(${JSON.stringify(name)}, _p${i})`,
    ]),
  ].join("\n");

  it("no storage, channel or worker API that survives the worker is reachable, each checked by name", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    try {
      await pythonReady(opened.page);
      await uploadText(opened.page, "n.txt", "nothing");
      const [out] = await run(opened.page, [probeCell], "probed");
      for (const [name] of STORAGE_PROBES) expect(out, name).toMatch(new RegExp(`^BLOCKED ${name.replace(/[()]/g, "\\$&")} `, "m"));
      expect(out).not.toContain("REACHABLE");
      // The REPL still works after all that (close() did not end it).
      const [alive] = await run(opened.page, ["print('ALIVE', len(context))"], "alive");
      expect(alive).toContain("ALIVE 7");
    } finally {
      await opened.close();
    }
  }, 180_000);
});

describe("the host trusts nothing the worker says about itself", () => {
  it("a cell that patches Python's output cap still shows a bounded output, quickly", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    try {
      await pythonReady(opened.page);
      await uploadText(opened.page, "c.txt", "cap");
      const patch = ["import sys", "big = 'E' * 60_000_000", "type(sys.stderr).getvalue = lambda self: big", "print('patched')"].join("\n");
      const started = Date.now();
      const out = await run(opened.page, [patch, "print('next cell')"], "bounded");
      expect(Date.now() - started).toBeLessThan(60_000);
      // The model saw bounded outputs, and the session kept working (the answer came through).
      expect(out[0]!.length).toBeLessThan(60_000);
      expect(out[1]!.length).toBeLessThan(60_000);
      // What the page keeps is bounded too (the trajectory holds the cell's stderr).
      await openSteps(opened.page.getByRole("button", { name: /(Show|Hide) steps/ }).last());
      const longest = await opened.page.evaluate(() =>
        Math.max(...[...document.querySelectorAll("pre.output")].map((p) => p.textContent?.length ?? 0)),
      );
      expect(longest).toBeLessThan(1_000_000);
    } finally {
      await opened.close();
    }
  }, 180_000);
});

describe("Stop and the next question always work", () => {
  it("work a cell schedules for later never runs, and a wedged worker is rebuilt with a plain message", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page } = opened;
    try {
      await pythonReady(page);
      await uploadText(page, "w.txt", "wedge");
      // A timer that would spin forever two seconds after the cell returned.
      const timer =
        "import js\nfrom pyodide.ffi import create_proxy\ndef spin():\n    while True:\n        pass\nkeep = create_proxy(spin)\njs.setTimeout(keep, 2000)\nprint('scheduled')";
      await run(page, [timer], "timer set");
      // Past the time the timer was set for, Python stays as it was: ready, not restarted.
      await expectNothingFor(2500, async () => expect(await page.locator(".chip", { hasText: "Python ready" }).count()).toBe(1));
      const [after] = await run(page, ["print('STILL-FINE')"], "timer cancelled");
      expect(after).toContain("STILL-FINE");
      expect(after).not.toContain("WorkerRestarted");
      // A message handler that spins: the heartbeat finds the worker silent and it is rebuilt.
      const wedge =
        "import js\nfrom pyodide.ffi import create_proxy\ndef spin(e):\n    while True:\n        pass\nch = js.MessageChannel.new()\nh = create_proxy(spin)\nch.port1.onmessage = h\nch.port2.postMessage(1)\nprint('wedged')";
      const started = Date.now();
      const out = await run(page, [wedge, "print('NEXT')", "print('AFTER', len(context))"], "recovered", 120_000);
      // Found silent before the next cell or right after this one, not at a time limit.
      expect(out.slice(0, 2).join("\n")).toMatch(
        /WorkerRestarted: (after the cell it|before this cell could run, the Python worker had) stopped answering/,
      );
      expect(out[2]).toContain("AFTER 5");
      expect(Date.now() - started).toBeLessThan(PYTHON_BOOT_ALLOWANCE_MS + 15_000);
      await expect(page.locator(".chip", { hasText: "Python ready" }).count()).resolves.toBe(1);
    } finally {
      await opened.close();
    }
  }, 240_000);

  it("Stop ends a run within 2 s even when Python must be killed, and + New and the next question work", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page } = opened;
    try {
      await pythonReady(page);
      await uploadText(page, "s.txt", "stop");
      const tag = `[s11-${++tagSeq}]`;
      // C code that never checks for interrupts: only killing the worker stops it.
      scripts.set(tag, [repl(`${REACHED_LINE}sum(range(10**13))`), repl('FINAL("never")')]);
      await page.getByRole("textbox", { name: "Question" }).fill(`${tag} Spin in C`);
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      // Python is in the C loop: the sub-call just before it is answered.
      await subcallAnswered(page);
      // From the click on Stop to the run showing "Stopped", timed by the page's own clock: the
      // test process's clock also counts the driver's round trips, seconds on a loaded machine.
      expect(await timeStop(asEnginePage(page), 10_000)).toBeLessThan(2_000);
      await page.locator("article.exchange").last().locator(".chip", { hasText: "Stopped" }).waitFor({ timeout: 5_000 });
      await expect(page.getByRole("button", { name: "+ New" }).isEnabled()).resolves.toBe(true);
      const [next] = await run(page, ["print('NEXT', context)"], "next works", 120_000);
      expect(next).toContain("NEXT stop");
    } finally {
      await opened.close();
    }
  }, 240_000);
});

describe("messages name the cause", () => {
  it("the code's own KeyboardInterrupt, os._exit, and deep recursion are each named, and the REPL keeps going", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page } = opened;
    try {
      await pythonReady(page);
      await uploadText(page, "m.txt", "msgs");
      const out = await run(
        page,
        [
          "raise KeyboardInterrupt",
          "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)",
          "import os\nos._exit(3)",
          "print('ALIVE')",
        ],
        "named",
        180_000,
      );
      expect(out[0]).toContain("the code raised KeyboardInterrupt itself");
      expect(out[0]).not.toMatch(/pressed Stop|time limit/);
      expect(out[1]).toContain("RecursionError");
      expect(out[1]).toMatch(/recursion limit stays at/);
      expect(out[2]).toMatch(/ended the Python process|SystemExit/);
      expect(out[2]).not.toMatch(/time limit/);
      expect(out[3]).toContain("ALIVE");
    } finally {
      await opened.close();
    }
  }, 240_000);

  it("Stop while the documents are still loading ends quietly: no traceback, no progress bar left", async () => {
    const opened: AppPage = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page } = opened;
    try {
      await pythonReady(page);
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["filler line of a large document\n".repeat(2_000_000)], "large.txt", { type: "text/plain" }));
        for (const type of ["dragenter", "dragover", "drop"])
          window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.getByRole("button", { name: "Remove large.txt" }).waitFor({ timeout: 60_000 });
      // After a reload the documents load into a new Python while the question waits for them.
      await page.reload();
      await page.locator(".docs .name", { hasText: "large.txt" }).waitFor({ timeout: 60_000 });
      const tag = `[s11-${++tagSeq}]`;
      scripts.set(tag, [repl('FINAL("late")')]);
      await page.getByRole("textbox", { name: "Question" }).fill(`${tag} Quick`);
      // Stop is clicked by the page itself the moment it appears, while the question still waits
      // for the documents. Playwright's click waits for the button to hold still for two frames;
      // while the page takes in 64 MB on a loaded machine that took longer than the documents took
      // to load (a fresh-clone run at load ~12): the run had answered, and Stop was gone.
      await stopWhenShown(page);
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await page.locator("article.exchange").last().locator(".chip", { hasText: "Stopped" }).waitFor({ timeout: 60_000 });
      // No late traceback from the load that Stop cut short.
      await expectNothingFor(1500, async () =>
        expect(await page.locator(".notices").innerText()).not.toMatch(/Traceback|KeyboardInterrupt|serializing/),
      );
      expect(await page.locator(".docs .progress").count()).toBe(0);
      // The documents still arrive, and the next question uses them.
      const [out] = await run(page, ["print('LINES', context.count(chr(10)))"], "loaded after all");
      expect(out).toContain("LINES 2000000");
    } finally {
      await opened.close();
    }
  }, 180_000);
});

describe("a runaway allocation", () => {
  const allocate = "import js\na = []\nwhile True:\n    a.append(js.Array.new(10**7).fill(0.5))";

  it("in Chromium ends only the sandboxed frame's process: the page goes on, says why, and the next cell has its documents", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, PARAMS);
    const { page } = opened;
    try {
      await pythonReady(page);
      expect(await page.locator('iframe[title="Python sandbox"]').count()).toBe(1);
      await uploadText(page, "r.txt", "runaway");
      // Playwright takes the frame's crash for the page's and refuses to drive it after: the rest
      // goes through the DevTools protocol, which shows the page as it is.
      const cdp = await page.context().newCDPSession(page);
      const inPage = async <T>(expression: string): Promise<T> => {
        const { result, exceptionDetails } = (await cdp.send("Runtime.evaluate", {
          expression,
          awaitPromise: true,
          returnByValue: true,
        })) as {
          result: { value: T };
          exceptionDetails?: { text: string };
        };
        if (exceptionDetails) throw new Error(exceptionDetails.text);
        return result.value;
      };
      const tag = `[s11-${++tagSeq}]`;
      scripts.set(tag, [
        repl("kept = 41\nprint('SET', kept)"),
        // JS arrays on the worker's V8 heap until it is exhausted: Chromium ends that process.
        repl(allocate),
        repl("print('AFTER', 'kept' in dir(), context)"),
        repl('FINAL("survived the runaway")'),
      ]);
      await page.getByRole("textbox", { name: "Question" }).fill(`${tag} Allocate`);
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      let answer = "";
      await waitUntil(
        async () => {
          answer = await inPage<string>(`[...document.querySelectorAll("section.answer")].at(-1)?.innerText ?? ""`);
          return answer.includes("survived the runaway");
        },
        { timeout: 150_000, interval: 500, what: "the answer after the runaway" },
      ).catch(() => undefined); // the expect below says what the page showed instead
      const outputs = turnOutputs(stack.server, tag);
      expect(answer, `turn outputs: ${JSON.stringify(outputs).slice(0, 1500)}`).toContain("survived the runaway");
      // The model is told what happened in words it can act on, and its next cell runs with the
      // documents loaded again (variables are gone: a new process).
      expect(outputs[1]).toMatch(/WorkerRestarted: the Python sandbox's process crashed, most likely out of memory/);
      expect(outputs[2]).toContain("AFTER False runaway");
      // Same page, same session: it never reloaded, and its Python is ready for the next question.
      expect(await inPage<number>("performance.getEntriesByType('navigation').length")).toBe(1);
      expect(await inPage<string>("document.querySelector('.docs .name')?.textContent ?? ''")).toContain("r.txt");
      expect(await inPage<number>(`document.querySelectorAll('iframe[title="Python sandbox"]').length`)).toBe(1);
    } finally {
      await opened.close();
    }
  }, 300_000);

  it("a frame that cannot run in this browser is named while Python starts again, in the page instead", async () => {
    // The frame's script is refused by its own policy: the frame never answers a ping.
    const variant = await startVariantServer({ workerCsp: true, lockDown: true, frameScriptBlocked: true });
    // A short allowance for the frame's first answer: this frame never answers, and waiting out
    // the default 30 s (meant for a busy machine's slow start) proves nothing more.
    const opened = await openApp(stack.browser, variant.url, stack.server, { ...PARAMS, replFrameStartMs: "3000" });
    const { page } = opened;
    try {
      // The start is tried once more (issue 34 #6), and that try no longer uses the frame: while
      // it runs, the chip says why, and it is not taken for a crash.
      const again = page.locator(".chip", { hasText: "Python starting again" });
      await again.waitFor({ state: "attached", timeout: 90_000 });
      const why = (await again.getAttribute("title")) ?? "";
      expect(why).toContain("frame did not start in this browser");
      expect(why).not.toContain("out of memory");
      await pythonReady(page);
      expect(await page.locator('iframe[title="Python sandbox"]').count()).toBe(0);
      await uploadText(page, "f.txt", "framed-out");
      const [out] = await run(page, ["print('IN PAGE', context)"], "page worker");
      expect(out).toContain("IN PAGE framed-out");
    } finally {
      await opened.close();
      await variant.close();
    }
  }, 180_000);

  it("in a page's own worker (Firefox, WebKit) takes the tab down, and it reopens with the session intact and the question marked", async () => {
    const opened = await openApp(stack.browser, stack.app.url, stack.server, { ...PARAMS, replFrame: "0" });
    const { page } = opened;
    try {
      await pythonReady(page);
      expect(await page.locator('iframe[title="Python sandbox"]').count()).toBe(0);
      await uploadText(page, "r.txt", "runaway");
      const tag = `[s11-${++tagSeq}]`;
      // JS arrays on the worker's V8 heap until it is exhausted: Chromium ends the renderer.
      scripts.set(tag, [repl(allocate), repl('FINAL("never")')]);
      const crashed = page.waitForEvent("crash", { timeout: 120_000 });
      await page.getByRole("textbox", { name: "Question" }).fill(`${tag} Allocate`);
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await crashed;
      // A new tab on the same profile: the session, its document and the question are there.
      const again = await page.context().newPage();
      await again.goto(page.url());
      await again.locator(".docs .name", { hasText: "r.txt" }).waitFor({ timeout: 60_000 });
      const exchange = again.locator("article.exchange").last();
      await exchange.locator(".chip", { hasText: /Cut off|Stopped|Failed/ }).waitFor({ timeout: 30_000 });
      await exchange.getByText(/cut off .* or the tab crashed/).waitFor();
      await again.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
      const [next] = await run(again, ["print('BACK', context)"], "back again", 120_000);
      expect(next).toContain("BACK runaway");
    } finally {
      await opened.close();
    }
  }, 300_000);
});
