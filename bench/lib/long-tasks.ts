// Long main-thread tasks as the page sees them: PerformanceObserver("longtask") and
// ("long-animation-frame"), installed before any page script, entries kept in window.__entries.
// Shared by the benchmarks that hold the page to "no task over 50 ms".

export interface Entry {
  kind: "longtask" | "loaf";
  start: number;
  duration: number;
  /** Long animation frames: the scripts that ran, with their source. */
  scripts?: Array<{
    invoker: string;
    sourceURL: string;
    sourceFunctionName: string;
    duration: number;
    forcedStyleAndLayoutDuration: number;
  }>;
  styleAndLayoutMs?: number;
}

/**
 * Installed before any page script. A string, not a function: tsx would wrap a function's inner
 * helpers in `__name(...)` calls that do not exist in the page.
 */
export const INSTALL_OBSERVERS = `(() => {
  window.__entries = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__entries.push({ kind: "longtask", start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {}
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__entries.push({
          kind: "loaf",
          start: e.startTime,
          duration: e.duration,
          styleAndLayoutMs: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
          scripts: e.scripts.map((s) => ({
            invoker: String(s.invoker),
            sourceURL: String(s.sourceURL),
            sourceFunctionName: String(s.sourceFunctionName),
            duration: Number(s.duration),
            forcedStyleAndLayoutDuration: Number(s.forcedStyleAndLayoutDuration),
          })),
        });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch (e) {}
})();`;

export const longest = (entries: Entry[], kind: Entry["kind"]) =>
  Math.max(0, ...entries.filter((e) => e.kind === kind).map((e) => e.duration));
