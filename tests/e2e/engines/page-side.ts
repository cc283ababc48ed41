// Functions that run inside the page under test. Each is sent as source text, so none may use
// anything from this module's scope.
import type { Target } from "./types.ts";

/** The element a Target names, or null. */
export function findTarget(target: Target): Element | null {
  const norm = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
  const all = Array.from(document.querySelectorAll(target.css)).filter((el) => {
    if (target.text === undefined) return true;
    const text = norm(el.textContent);
    return target.exact ? text === target.text : text.includes(target.text);
  });
  return (target.last ? all[all.length - 1] : all[0]) ?? null;
}

/** Collects errors for engines whose automation reports none (installed after each load). */
export function installErrorCollector(): void {
  const w = window as unknown as { __engineErrors?: string[] };
  if (w.__engineErrors) return;
  const errors: string[] = (w.__engineErrors = []);
  window.addEventListener("error", (e) => errors.push(`pageerror: ${e.message}`));
  window.addEventListener("unhandledrejection", (e) => {
    const reason = (e as PromiseRejectionEvent).reason as { message?: string } | undefined;
    errors.push(`pageerror: ${reason?.message ?? String(reason)}`);
  });
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    errors.push(`console: ${args.map(String).join(" ")}`);
    original(...args);
  };
}

/** Takes the errors collected so far. */
export function takeCollectedErrors(): string[] {
  const w = window as unknown as { __engineErrors?: string[] };
  return w.__engineErrors?.splice(0) ?? [];
}

/** Sets a text field's value as typing would, so frameworks listening for `input` see it. */
export function fillElement(arg: { target: Target; text: string }): boolean {
  const norm = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
  const all = Array.from(document.querySelectorAll(arg.target.css)).filter(
    (el) => arg.target.text === undefined || norm(el.textContent).includes(arg.target.text),
  );
  const el = (arg.target.last ? all[all.length - 1] : all[0]) as HTMLInputElement | HTMLTextAreaElement | undefined;
  if (!el) return false;
  el.focus();
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(el, arg.text);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
}

/**
 * `fn(arg)` as one expression of source text. The arg travels as JSON; `__name` is defined
 * because esbuild-based loaders (tsx) wrap named functions in `__name(...)` calls that would
 * otherwise throw inside the page.
 */
export function pageExpression(fn: (arg: never) => unknown, arg: unknown): string {
  return `(() => { const __name = (f) => f; return (${fn.toString()})(${JSON.stringify(arg ?? null)}); })()`;
}

/** Tags the element a Target names with a unique attribute, so a driver's own locator (with its
 * waits for a stable, enabled element) can act on it. Returns the attribute selector or null. */
export function markTarget(arg: { target: Target; mark: string }): string | null {
  const norm = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
  const all = Array.from(document.querySelectorAll(arg.target.css)).filter((el) => {
    if (arg.target.text === undefined) return true;
    const text = norm(el.textContent);
    return arg.target.exact ? text === arg.target.text : text.includes(arg.target.text);
  });
  const el = arg.target.last ? all[all.length - 1] : all[0];
  if (!el) return null;
  el.setAttribute("data-engine-target", arg.mark);
  return `[data-engine-target="${arg.mark}"]`;
}

/** True when a click at the target's centre would reach it (nothing such as a toast on top). */
export function receivesClicks(target: Target): boolean {
  const norm = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
  const all = Array.from(document.querySelectorAll(target.css)).filter((el) => {
    if (target.text === undefined) return true;
    const text = norm(el.textContent);
    return target.exact ? text === target.text : text.includes(target.text);
  });
  const el = target.last ? all[all.length - 1] : all[0];
  if (!el) return false;
  el.scrollIntoView({ block: "nearest" });
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && (hit === el || el.contains(hit));
}
