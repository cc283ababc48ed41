// The page's side of every engine in src/engines/registry.ts, found by folder: each engine folder
// has a page.ts exporting `page` (src/app/engine-host.ts). Nothing here names an engine, so adding
// one never touches this file.
import { ENGINES, type EngineId } from "../engines/registry.ts";
import type { EnginePage } from "./engine-host.ts";

const found = import.meta.glob<{ page: EnginePage }>("../engines/*/page.ts", { eager: true });

export const ENGINE_PAGES: Record<EngineId, EnginePage> = Object.fromEntries(
  ENGINES.map((e) => {
    const module = found[`../engines/${e.id}/page.ts`];
    if (!module) throw new Error(`src/engines/${e.id}/page.ts is missing: every engine in the registry needs its page side.`);
    return [e.id, module.page];
  }),
) as Record<EngineId, EnginePage>;
