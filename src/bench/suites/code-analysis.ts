// Facts about a JavaScript/TypeScript repository, computed with line-oriented regular
// expressions. They are deliberately simple (no parser is bundled for the browser); the tests
// check them against the TypeScript compiler's parser on the real repository used.

export type SourceTree = Record<string, string>;

const IDENT = "[A-Za-z_$][\\w$]*";

/** Names of `function NAME(` declarations that start a line (nested ones included). */
export function functionDeclarations(source: string): string[] {
  const re = new RegExp(
    `^[ \\t]*(?:export[ \\t]+(?:default[ \\t]+)?)?(?:async[ \\t]+)?function[ \\t]*\\*?[ \\t]*(${IDENT})[ \\t]*\\(`,
    "gm",
  );
  return [...source.matchAll(re)].map((m) => m[1]!);
}

export interface ExportInfo {
  names: string[];
  /** False when the file exports in a way the regexes cannot enumerate (module.exports = …, export *). */
  enumerable: boolean;
}

/** Distinct exported names: CommonJS `exports.NAME =` and ES `export …` forms. */
export function exportedNames(source: string): ExportInfo {
  const names = new Set<string>();
  let enumerable = !/^[ \t]*module\.exports[ \t]*=/m.test(source) && !/^[ \t]*export[ \t]*\*/m.test(source);
  // Anywhere, not only at line starts: chains such as `exports.a = exports.A = A` name two exports.
  for (const m of source.matchAll(new RegExp(`(?<![\\w$.])(?:module\\.)?exports\\.(${IDENT})\\s*=(?!=)`, "g"))) names.add(m[1]!);
  for (const m of source.matchAll(
    new RegExp(`^[ \\t]*export[ \\t]+(?:async[ \\t]+)?(?:function[ \\t]*\\*?|class|const|let|var)[ \\t]*(${IDENT})`, "gm"),
  )) {
    names.add(m[1]!);
  }
  if (/^[ \t]*export[ \t]+default\b/m.test(source)) names.add("default");
  for (const m of source.matchAll(/^[ \t]*export[ \t]*(?:type[ \t]*)?\{([^}]*)\}/gm)) {
    for (const part of m[1]!.split(",")) {
      const alias = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (alias) names.add(alias);
    }
  }
  // Destructured exports (`export const { a, b } = …`) are not enumerated above.
  if (/^[ \t]*export[ \t]+(?:const|let|var)[ \t]*[{[]/m.test(source)) enumerable = false;
  return { names: [...names], enumerable };
}

/** Module specifiers a file imports or requires, in order of appearance. */
export function importSpecifiers(source: string): string[] {
  const specs: string[] = [];
  const re =
    /\brequire\(\s*["']([^"'\n]+)["']\s*\)|\b(?:import|export)\b[^;"'()]*?\bfrom\s*["']([^"'\n]+)["']|\bimport\s*\(?\s*["']([^"'\n]+)["']/g;
  for (const m of source.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** `base`/`rel` with `.` and `..` resolved, as a tree key (no leading slash). */
export function joinPath(base: string, rel: string): string {
  const out: string[] = [];
  for (const part of `${base}/${rel}`.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

const RESOLVE_SUFFIXES = ["", ".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".json", "/index.js", "/index.ts"];

/** The tree file a relative specifier in `from` points to, or null (packages, missing files). */
export function resolveImport(tree: SourceTree, from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = joinPath(dirname(from), spec);
  for (const suffix of RESOLVE_SUFFIXES) {
    const candidate = `${base}${suffix}`;
    if (Object.prototype.hasOwnProperty.call(tree, candidate)) return candidate;
  }
  return null;
}

/** For every file, the files that import it (relative imports only). */
export function importersByFile(tree: SourceTree): Map<string, string[]> {
  const importers = new Map<string, string[]>();
  for (const path of Object.keys(tree).sort()) {
    if (!isScript(path)) continue;
    const targets = new Set<string>();
    for (const spec of importSpecifiers(tree[path]!)) {
      const target = resolveImport(tree, path, spec);
      if (target && target !== path) targets.add(target);
    }
    for (const t of targets) importers.set(t, [...(importers.get(t) ?? []), path]);
  }
  return importers;
}

export function isScript(path: string): boolean {
  return /\.(?:[cm]?js|jsx|ts|tsx)$/.test(path) && !path.endsWith(".d.ts");
}
