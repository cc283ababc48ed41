// Pyodide's JavaScript (pyodide.asm.mjs, 1.2 MB) compiled with V8's code cache, kept in the CLI's
// cache directory beside the Python snapshot (Node only).
//
// A warm `rlm` start spends ~40 ms parsing and compiling that module and ~25 ms more compiling its
// functions as the restore first calls them, on the REPL thread, the run's critical path. Node 20
// caches no compiled code between processes (module.enableCompileCache is Node 22), but vm.Script
// takes and produces V8's code cache: with one made after a start, compiling takes ~20 ms and the
// functions come compiled (interleaved runs: "Python start" −30 to −40 ms; bench/RESULTS.md, issue
// 17). A vm.Script is not an ES module, so the module's three module-only forms are rewritten:
// `import.meta.url` becomes a parameter, `import(…)` a function resolving from Pyodide's
// directory, `export default` a return; any other module form is a SyntaxError in a script.
//
// Never trusted blindly: V8 itself rejects a cache made by another V8 version or other flags, but
// checks the source only by its length. So the file is keyed by Pyodide's version, V8's cache tag,
// the module file's size and modification time and the form of the rewrite, and carries a CRC-32
// of its bytes. Anything unexpected (no cache, a bad one, a module of another shape, any error)
// means Pyodide's own import, as before; a missing or refused cache is written again after Python
// has started.
//
// The rewrite also puts every `import(…)` of Pyodide's JavaScript in our hands, cache or not: once
// Python has started, the sandbox refuses them all (`refuseImports`), so model code cannot have
// Pyodide load `node:net` for a socket, or a module from a `data:` URL (lockdown.node.ts).
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cachedDataVersionTag } from "node:v8";
import vm from "node:vm";
import { crc32 } from "node:zlib";
import { CODE_CACHE_FILES, CODE_CACHE_HEADER_BYTES, CODE_CACHE_MAGIC, type CacheWriter } from "../../src/repl/cache-writes.node.ts";

type CreatePyodideModule = (settings: object) => Promise<unknown>;

export interface PyodideScript {
  /** pyodide.asm.mjs's default export; the module is compiled by `prepare` or on the first call. */
  createPyodideModule: CreatePyodideModule;
  /** Compiles the module now (synchronously), unless that was done: call it while the thread would wait anyway. */
  prepare(): void;
  /** After Python has started: stores the compiled code for the next start, if the cache lacked it. */
  keep(): Promise<void>;
  /** From now on every `import(…)` of Pyodide's JavaScript fails (see the file's comment). */
  refuseImports(): void;
}

/** Where the code cache is kept, and who may write there (the sandbox's parent, see cache-writes.node.ts). */
export interface CodeCacheDir {
  dir: string;
  writer: CacheWriter;
}

/** Where the module is, and the name its cache goes under. */
interface Source {
  file: string;
  /** The code cache's name and file, when there is a cache directory. */
  cache: { name: string; file: string; writer: CacheWriter } | null;
}

/**
 * The Node builtins Pyodide's JavaScript imports while it starts. Nothing else is loaded, ever:
 * not `node:net`/`node:tls` (its sockets), not `node:child_process`, not a package, not a URL.
 */
const BOOT_IMPORTS = new Set(["node:fs", "node:fs/promises", "node:path", "node:url", "node:crypto", "node:vm", "node:module"]);

export class PyodideImportRefused extends Error {
  override name = "PyodideImportRefused";
  constructor(specifier: string) {
    super(`Loading JavaScript modules is disabled in the Python sandbox (asked for ${JSON.stringify(String(specifier)).slice(0, 80)}).`);
  }
}

/**
 * pyodide.asm.mjs of `pyodideDir` (ending in "/"), compiled as a script, its compiled code cached
 * in `cache.dir` when there is one; null when the module cannot even be looked at (then Pyodide
 * imports its own).
 */
export function pyodideScript(pyodideDir: string, cache: CodeCacheDir | null, pyodideVersion: string): PyodideScript | null {
  let source: Source;
  try {
    const file = `${pyodideDir}pyodide.asm.mjs`;
    const { size, mtimeMs } = statSync(file);
    const key = createHash("sha256")
      .update(JSON.stringify([pyodideVersion, cachedDataVersionTag(), size, mtimeMs, SCRIPT_FORM]))
      .digest("hex")
      .slice(0, 16);
    const name = `${CODE_CACHE_FILES.prefix}${key}${CODE_CACHE_FILES.suffix}`;
    source = { file, cache: cache ? { name, file: join(cache.dir, name), writer: cache.writer } : null };
  } catch {
    return null;
  }
  let compiled: { script: vm.Script; cacheUsed: boolean } | null = null;
  let factory: Promise<CreatePyodideModule> | null = null;
  let importsRefused = false;
  const load = async (): Promise<CreatePyodideModule> => {
    try {
      const made = compile(source, (specifier) => {
        if (importsRefused || !BOOT_IMPORTS.has(specifier)) return Promise.reject(new PyodideImportRefused(specifier));
        return import(specifier);
      });
      compiled = made;
      return made.factory;
    } catch {
      // Not the shape this code knows (another Pyodide build), or V8 refused it: Pyodide's way.
      return ((await import(pathToFileURL(source.file).href)) as { default: CreatePyodideModule }).default;
    }
  };
  return {
    createPyodideModule: async (settings) => (await (factory ??= load()))(settings),
    prepare() {
      factory ??= load();
    },
    async keep() {
      if (!compiled || compiled.cacheUsed || !source.cache) return;
      try {
        await source.cache.writer({ op: "code-cache", name: source.cache.name, payload: compiled.script.createCachedData() });
      } catch {
        // A read-only or full cache directory: the next start compiles the module again.
      }
    },
    refuseImports() {
      importsRefused = true;
    },
  };
}

function compile(
  source: Source,
  importFor: (specifier: string) => Promise<unknown>,
): { script: vm.Script; cacheUsed: boolean; factory: CreatePyodideModule } {
  const text = asScript(readFileSync(source.file, "utf8"));
  const cachedData = source.cache ? readCache(source.cache.file) : null;
  const script = new vm.Script(text, { filename: source.file, ...(cachedData ? { cachedData } : {}) });
  const define = script.runInThisContext() as (url: string, load: (specifier: string) => Promise<unknown>) => CreatePyodideModule;
  const factory = define(pathToFileURL(source.file).href, importFor);
  if (typeof factory !== "function") throw new Error("pyodide.asm.mjs did not define _createPyodideModule");
  return { script, cacheUsed: !!cachedData && !script.cachedDataRejected, factory };
}

const EXPORT = "export default _createPyodideModule;";
/** Changes whenever asScript's wrapper does, so that no cache made of another wrapper is offered to V8 (2: strict). */
const SCRIPT_FORM = 2;
// Written as patterns so that no tool rewriting `import.meta.url` in our own sources touches them.
const IMPORT_META_URL = /(?<![\w$.])import\.meta\.url\b/g;
const DYNAMIC_IMPORT = /(?<![\w$.])import\(/g;

/**
 * The module as a function expression `(importMetaUrl, dynamicImport) => _createPyodideModule`.
 * Throws when it does not end in the one export this expects; any other module form left over (a
 * static import, another export) is a SyntaxError in a script, so V8 refuses it at compile.
 *
 * Strict, as the module was: in a sloppy script a function called without a receiver gets the
 * real `globalThis` as `this`, and V8 hands the receiver and the function of every sloppy frame
 * to a stack-trace hook (CallSite getThis/getFunction). Python calls through these frames, so a
 * hook of Python's would have reached the global the lockdown hides from `import js` (issue 32).
 */
export function asScript(module: string): string {
  const end = module.trimEnd();
  if (!end.endsWith(EXPORT) || end.indexOf(EXPORT) !== end.length - EXPORT.length) throw new Error("unexpected export");
  const body = end.slice(0, -EXPORT.length).replace(IMPORT_META_URL, "__rlmImportMetaUrl").replace(DYNAMIC_IMPORT, "__rlmImport(");
  return `(function (__rlmImportMetaUrl, __rlmImport) {"use strict";${body}\nreturn _createPyodideModule;\n})`;
}

/** The cached code if the file is there and whole; null otherwise. */
function readCache(file: string): Buffer | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  if (bytes.length <= CODE_CACHE_HEADER_BYTES || bytes.readUInt32LE(0) !== CODE_CACHE_MAGIC) return null;
  const payload = bytes.subarray(CODE_CACHE_HEADER_BYTES);
  return crc32(payload) === bytes.readUInt32LE(4) ? payload : null;
}
