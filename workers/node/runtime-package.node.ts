// The runtime package's files read from disk, for the Node worker and tests: every .py file under
// workers/python/rlm_runtime/, so a new module needs no list of its own here. (The sandbox process
// may read workers/python, with workers/node and workers/shared: src/node/python-sandbox.mjs.)
import { readFileSync, readdirSync } from "node:fs";
import { RUNTIME_PACKAGE, packageFiles, type RuntimeFile } from "../shared/runtime-package.ts";

const pythonDir = new URL("../python/", import.meta.url);

export function readRuntimePackage(): RuntimeFile[] {
  const names = readdirSync(new URL(`${RUNTIME_PACKAGE}/`, pythonDir), { recursive: true, encoding: "utf8" });
  return packageFiles(
    names
      .map((name) => `${RUNTIME_PACKAGE}/${name.split("\\").join("/")}`)
      .filter((path) => path.endsWith(".py"))
      .map((path) => ({ path, source: readFileSync(new URL(path, pythonDir), "utf8") })),
  );
}
