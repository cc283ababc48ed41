// What reaches the person's terminal (issue 32 §1): the real `rlm` under a real pseudo-terminal
// (util-linux `script`), against the scripted model server, with a document, model text and an
// answer that carry the escape sequences an attacker would use. On a terminal none is printed
// raw (answer, sources, --verbose); --json stays valid JSON with the exact answer; a pipe and
// --raw-output get the bytes.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
const ESC = "\x1b";
// Each one, raw, would act on the terminal: clipboard write, a disguised link, overwriting the
// line above, hidden text, the window title, and a C1 CSI that clears the screen.
const ATTACKS = [
  `${ESC}]52;c;cm0gLXJmIH4=\x07`,
  `${ESC}]8;;https://evil.example/${ESC}\\the docs${ESC}]8;;${ESC}\\`,
  `${ESC}[1A${ESC}[2Keverything is fine`,
  `${ESC}[8mhidden words${ESC}[0m`,
  `${ESC}]0;pwned\x07`,
  "\x9b2J",
].join(" ");
/** What a terminal obeys (a pty turns \n into \r\n, so a carriage return before a newline is fine). */
const OBEYED = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;

let server: ScriptedServer;
let dir: string;
let doc: string;

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

interface Run {
  code: number;
  out: string;
  err: string;
}

/** `rlm` with stdin, stdout and stderr on a pseudo-terminal (`script` copies what it shows to our pipe). */
function onTerminal(args: string[]): Promise<Run> {
  const command = [process.execPath, bin, ...args].map(quote).join(" ");
  return spawn("script", ["-qec", command, "/dev/null"]);
}

/** `rlm` writing to pipes. */
function onPipes(args: string[]): Promise<Run> {
  return spawn(process.execPath, [bin, ...args]);
}

function spawn(file: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR, TERM: "xterm-256color" };
    const child = execFile(file, args, { timeout: 90_000, env, encoding: "utf8" }, (err, out, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, out, err: stderr });
    });
    child.stdin?.end();
  });
}

const args = () => ["--context-file", doc, "--task", "What is the word?", "--base-url", server.baseUrl, "--model", "root-model"];

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
  dir = await mkdtemp(join(tmpdir(), "rlm-tty-"));
  doc = join(dir, "doc.txt");
  await writeFile(doc, `${"Filler line, nothing here.\n".repeat(200)}The word is OSPREY ${ATTACKS} END\n${"More filler.\n".repeat(20)}`);
  server.scripts.root = [
    // Model text with raw escapes (streamed to --verbose), and a cell whose output carries them.
    code("i = context.index('OSPREY')\nprint(context[i:context.index(' END')])", `Looking ${ATTACKS} now.`),
    // The answer: a passage of the document (so the sources quote it) and escapes built in Python.
    code("FINAL(context[i:context.index(' END')] + chr(27) + ']52;c;eHh4' + chr(7) + chr(0x9b) + '1A')"),
  ];
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const answer = `OSPREY ${ATTACKS}${ESC}]52;c;eHh4\x07\x9b1A`;

describe("rlm on a terminal", () => {
  it("shows every escape sequence in the answer, the sources and --verbose instead of sending it", async () => {
    const run = await onTerminal([...args(), "--mode", "rlm", "--verbose"]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain("OSPREY ^[]52;c;cm0gLXJmIH4=^G");
    expect(run.out).toContain("\\x9b2J");
    expect(run.out).toContain("Looking ^[]52;"); // the model's own text, streamed
    expect(run.out).toContain("sources (best first):");
    expect(run.out).toMatch(/│ .*OSPREY \^\[\]52/); // the passage quoted in the sources
    expect(run.out).not.toMatch(OBEYED);
  });

  it("--json stays valid JSON with the exact answer, and nothing raw", async () => {
    // --quiet: the pty merges stderr into what this test reads, and the progress line (ours, on a
    // terminal's stderr) rewrites itself with \r and an erase; cli-progress.test.ts covers it.
    const run = await onTerminal([...args(), "--mode", "rlm", "--json", "--quiet"]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toMatch(OBEYED);
    const json = JSON.parse(run.out.replace(/\r\n/g, "\n")) as { answer: string };
    expect(json.answer).toBe(answer);
  });

  it("--raw-output sends the bytes (and this test can see them)", async () => {
    const run = await onTerminal([...args(), "--mode", "rlm", "--raw-output"]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain(`OSPREY ${ESC}]52;c;`);
    expect(run.out).toContain("\x9b2J");
  });
});

describe("rlm into a pipe", () => {
  it("writes the answer byte for byte, as the README says", async () => {
    const run = await onPipes([...args(), "--mode", "rlm"]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toBe(`${answer}\n`);
  });
});
