// Comlink ships no `exports` map and no .d.mts files, so Node-only code that imports its ESM
// build by path (bare "comlink" resolves to the UMD build in plain Node) needs these shims.
declare module "comlink/dist/esm/comlink.mjs" {
  export * from "comlink";
}
declare module "comlink/dist/esm/node-adapter.mjs" {
  import type { Endpoint } from "comlink";
  export default function nodeEndpoint(nep: unknown): Endpoint;
}
declare module "*.py?raw" {
  const source: string;
  export default source;
}
