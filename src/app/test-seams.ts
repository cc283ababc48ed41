// The page's test seams, read in this one place: an e2e test defines `globalThis.__rlmTestGrammar`
// (a function from a request's messages to a grammar, so a random-weight model says an exact
// reply) and `globalThis.__rlmTestCatalogBase` (where the CPU catalog downloads from, a server on
// 127.0.0.1), with an init script or from the test. Nothing in the page, its settings or its
// links sets them. The engines read no globals: they get these as options, through the hosts'
// context (src/app/engine-host.ts).
import type { TestSeams } from "./engine-host.ts";

/** Seams that read `scope`'s test globals when asked, so one a test defines after load still applies. */
export function pageTestSeams(scope: object = globalThis): TestSeams {
  const globals = scope as { __rlmTestGrammar?: unknown; __rlmTestCatalogBase?: unknown };
  return {
    testGrammar: (messages) => {
      const hook = globals.__rlmTestGrammar;
      return typeof hook === "function" ? (hook as (m: typeof messages) => string | undefined)(messages) : undefined;
    },
    catalogBase: () => {
      const base = globals.__rlmTestCatalogBase;
      return typeof base === "string" && base ? base : undefined;
    },
  };
}
