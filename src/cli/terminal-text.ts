// What `rlm` writes to a terminal is text a model chose, or a document, or model-written code
// built (from chr(27) as easily as from letters). A terminal obeys control characters: OSC 52
// writes the clipboard, OSC 8 disguises a link, cursor-up + erase-line makes an answer overwrite
// the line above it, SGR 8 hides text, OSC 0 sets the window title, and C1 controls (U+009B is
// CSI) do the same without an ESC. So on a terminal every control character but newline and tab
// is shown, never obeyed: C0 and DEL in caret notation as `cat -v` writes them (`^[`, `^G`,
// `^?`), C1 as `\x9b`. A pipe or a file gets the bytes unchanged; --raw-output keeps them on a
// terminal too.

// C0 but tab (09) and newline (0a); a carriage return only where it does not end a CRLF line
// end (a lone one sends the cursor back to overwrite the line); DEL and C1 (7f–9f).
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;

function shown(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x7f) return "^?";
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  return `\\x${code.toString(16)}`;
}

/** `text` with every control character a terminal would act on made visible. */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, shown);
}

/** Where each of the CLI's two output streams goes. */
export interface TerminalStreams {
  stdout: boolean;
  stderr: boolean;
}

/**
 * The writers to use: each stream that is a terminal shows control characters visibly, unless
 * `raw` (--raw-output) asks for the bytes as they are.
 */
export function terminalSafe<W extends { stdout: (s: string) => void; stderr: (s: string) => void }>(
  io: W,
  terminal: TerminalStreams | undefined,
  raw: boolean,
): W {
  if (raw || !terminal) return io;
  const { stdout, stderr } = io;
  return {
    ...io,
    stdout: terminal.stdout ? (s: string) => stdout(visibleControls(s)) : stdout,
    stderr: terminal.stderr ? (s: string) => stderr(visibleControls(s)) : stderr,
  };
}

/**
 * JSON with DEL and C1 controls written as \u escapes. JSON.stringify escapes C0 already but
 * leaves U+007F–U+009F raw, and U+009B is CSI on a terminal that takes C1 in UTF-8; escaped,
 * the JSON parses to the same value and `--json` is safe on a terminal and in a pipe alike.
 */
export function inertJson(json: string): string {
  return json.replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
