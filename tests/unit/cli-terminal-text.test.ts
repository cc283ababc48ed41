// What `rlm` puts on a terminal (issue 32 §1): no control character a model, a document or a
// cell chose is obeyed by the terminal; each is shown. Pipes and --raw-output keep the bytes.
import { describe, expect, it } from "vitest";
import { inertJson, terminalSafe, visibleControls } from "../../src/cli/terminal-text.ts";

const ESC = "\x1b";
const attacks = {
  clipboard: `${ESC}]52;c;cm0gLXJmIH4=\x07`,
  link: `${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\`,
  overwrite: `${ESC}[1A${ESC}[2Keverything is fine`,
  hidden: `${ESC}[8msecret${ESC}[0m`,
  title: `${ESC}]0;pwned\x07`,
  c1: "\x9b2J\x9d0;t\x9c",
};

/** Anything a terminal acts on: C0 but tab and newline, a carriage return not before a newline, DEL, C1. */
const obeyed = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;

describe("visibleControls", () => {
  it("shows every escape sequence instead of letting the terminal run it", () => {
    for (const [name, seq] of Object.entries(attacks)) {
      const out = visibleControls(`before ${seq} after`);
      expect(out, name).not.toMatch(obeyed);
      expect(out.startsWith("before ") && out.endsWith(" after"), name).toBe(true);
    }
    expect(visibleControls(attacks.clipboard)).toBe("^[]52;c;cm0gLXJmIH4=^G");
    expect(visibleControls(attacks.c1)).toBe("\\x9b2J\\x9d0;t\\x9c");
    expect(visibleControls("\x00\x7f\x08\r")).toBe("^@^?^H^M");
  });

  it("keeps text, newlines, tabs, CRLF line ends and non-ASCII letters as they are", () => {
    const text = "line 1\tcol\r\nline 2\nnaïve café — 東京 😀 \u00a0nbsp";
    expect(visibleControls(text)).toBe(text);
  });
});

describe("terminalSafe", () => {
  const hostile = `answer${attacks.overwrite}`;
  const capture = () => {
    const seen = { stdout: "", stderr: "" };
    const io = { stdout: (s: string) => void (seen.stdout += s), stderr: (s: string) => void (seen.stderr += s) };
    return { seen, io };
  };

  it("cleans each stream that is a terminal, and only that one", () => {
    const { seen, io } = capture();
    const safe = terminalSafe(io, { stdout: true, stderr: false }, false);
    safe.stdout(hostile);
    safe.stderr(hostile);
    expect(seen.stdout).not.toMatch(obeyed);
    expect(seen.stderr).toBe(hostile);
  });

  it("passes the bytes through with --raw-output, or when nothing is a terminal", () => {
    for (const [terminal, raw] of [
      [{ stdout: true, stderr: true }, true],
      [{ stdout: false, stderr: false }, false],
      [undefined, false],
    ] as const) {
      const { seen, io } = capture();
      const safe = terminalSafe(io, terminal, raw);
      safe.stdout(hostile);
      safe.stderr(hostile);
      expect(seen).toEqual({ stdout: hostile, stderr: hostile });
    }
  });
});

describe("inertJson", () => {
  it("escapes DEL and C1 controls, which JSON.stringify leaves raw, and parses back to the same value", () => {
    const value = { answer: `x${attacks.c1}${attacks.overwrite}\x7f` };
    const raw = JSON.stringify(value);
    expect(raw).toMatch(/[\x7f-\x9f]/); // why the helper exists
    const json = inertJson(raw);
    expect(json).not.toMatch(obeyed);
    expect(JSON.parse(json)).toEqual(value);
  });
});
