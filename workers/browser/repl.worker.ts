// The REPL as a module worker of the page's own origin (every engine but Chromium, which runs it
// in the sandboxed frame instead: src/repl/sandbox-frame.ts). Everything it does is in
// repl-browser-api.ts; the server gives this script its sandbox policy (src/security/csp.ts).
import * as Comlink from "comlink";
import { browserReplWorker } from "./repl-browser-api.ts";

Comlink.expose(browserReplWorker());
