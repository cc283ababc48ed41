// The engines the cross-engine tests run on, which of them this machine has, and the waits every
// test needs (built on evaluate, so they behave the same in all three).
import { existsSync } from "node:fs";
import { CHROMIUM } from "../harness.ts";
import { launchChromium } from "./chromium.ts";
import { FIREFOX, launchFirefox } from "./firefox.ts";
import { findTarget } from "./page-side.ts";
import type { EngineBrowser, EngineName, EnginePage, Target } from "./types.ts";
import { waitForFunction } from "./wait.ts";
import { WEBKIT_DRIVER, XVFB_RUN, launchWebKit } from "./webkit.ts";

export type * from "./types.ts";
export { waitForFunction } from "./wait.ts";

export const ALL_ENGINES: EngineName[] = ["chromium", "firefox", "webkit"];

/** Why an engine cannot run here, or null when it can. */
export function missingEngine(engine: EngineName): string | null {
  const need: Record<EngineName, Array<[string, string]>> = {
    chromium: [[CHROMIUM, "apt-get install chromium"]],
    firefox: [[FIREFOX, "apt-get install firefox-esr"]],
    webkit: [
      [WEBKIT_DRIVER, "apt-get install webkit2gtk-driver"],
      [XVFB_RUN, "apt-get install xvfb xauth"],
    ],
  };
  for (const [path, fix] of need[engine]) if (!existsSync(path)) return `${path} is missing (${fix}, or run .ci/run)`;
  return null;
}

/** The engines to test: E2E_ENGINES=chromium,firefox narrows the list. */
export function selectedEngines(): EngineName[] {
  const wanted = process.env.E2E_ENGINES?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return ALL_ENGINES.filter((e) => !wanted || wanted.includes(e));
}

export function launchEngine(engine: EngineName): Promise<EngineBrowser> {
  return { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebKit }[engine]();
}

// Composed page functions embed findTarget as text; `__name` as in pageExpression().
const findTargetSource = `(() => { const __name = (f) => f; return ${findTarget.toString()}; })()`;

/** Waits until the target exists in the page. */
export async function waitFor(page: EnginePage, target: Target, timeout = 30_000): Promise<void> {
  const exists = new Function("t", `return !!(${findTargetSource})(t);`) as (t: Target) => boolean;
  await waitForFunction(page, exists, target, { timeout, what: JSON.stringify(target) });
}

/** Waits until the target's text contains `text`; returns that text. */
export async function waitForText(page: EnginePage, target: Target, text: string | RegExp, timeout = 30_000): Promise<string> {
  const pattern =
    typeof text === "string"
      ? { source: text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), flags: "" }
      : { source: text.source, flags: text.flags };
  const fn = new Function(
    "a",
    `const el = (${findTargetSource})(a.t); if (!el) return null; const s = el.textContent.replace(/\\s+/g, " ").trim(); return new RegExp(a.p.source, a.p.flags).test(s) ? s : null;`,
  ) as (a: { t: Target; p: typeof pattern }) => string | null;
  return waitForFunction(
    page,
    fn,
    { t: target, p: pattern },
    { timeout, what: `${JSON.stringify(target)} to show ${String(text)}` },
  ) as Promise<string>;
}

/**
 * Applies the settings a link proposes, as a person would: the page only proposes a link's
 * settings in a modal dialog, and nothing else is clickable until it is answered. Shared by the
 * engine tests and bench/engines.ts.
 */
export async function applyLinkSettings(page: EnginePage, timeout = 60_000): Promise<void> {
  const apply: Target = { css: "dialog.link-settings button", text: "Apply these settings", exact: true };
  await waitFor(page, apply, timeout);
  await page.click(apply);
  await waitForFunction(page, () => !document.querySelector("dialog.link-settings[open]"), undefined, {
    what: "the link's settings to be applied",
  });
}

/**
 * Clicks the page's Stop and returns the milliseconds until the run shows "Stopped", timed by the
 * page's own clock (a MutationObserver, so no poll interval is counted). Shared by the engine
 * tests and bench/engines.ts.
 */
export async function timeStop(page: EnginePage, timeout: number): Promise<number> {
  const clicked = await page.evaluate(() => {
    const w = window as unknown as { __stop: { clicked?: number; shown?: number } };
    w.__stop = {};
    new MutationObserver(() => {
      if (
        w.__stop.clicked &&
        !w.__stop.shown &&
        Array.from(document.querySelectorAll(".exchange .chip")).some((c) => c.textContent?.includes("Stopped"))
      ) {
        w.__stop.shown = performance.now();
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
    const stop = Array.from(document.querySelectorAll("button")).find((b) => b.textContent?.trim() === "Stop");
    w.__stop.clicked = performance.now();
    stop?.click();
    return !!stop;
  });
  if (!clicked) throw new Error("The page showed no Stop button to click");
  const stopped = await waitForFunction(
    page,
    () => {
      const s = (window as unknown as { __stop: { clicked: number; shown?: number } }).__stop;
      return s.shown === undefined ? null : { ms: s.shown - s.clicked };
    },
    undefined,
    { timeout, what: "the run to show Stopped" },
  );
  return stopped!.ms;
}
