// Builds the benchmark pages (this folder's Vite config) into bench/out/browser-dist and serves
// them with `vite preview`: production bundles, the same headers as the app.
import { fileURLToPath } from "node:url";
import { build, preview } from "vite";

const CONFIG = fileURLToPath(new URL("./vite.config.ts", import.meta.url));

export async function startBenchPages(): Promise<{ url: string; close: () => Promise<void> }> {
  await build({ configFile: CONFIG, logLevel: "error" });
  const server = await preview({ configFile: CONFIG, preview: { port: 0, strictPort: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error("the bench page server has no local URL");
  return { url, close: () => server.close() };
}
