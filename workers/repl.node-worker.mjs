// Node 20 cannot run TypeScript by itself; tsx compiles the worker thread's modules on load.
import { register } from "tsx/esm/api";

register();
await import("./repl.node-entry.ts");
