// Assertions shared by the sandbox tests (run inside Vitest).
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { CanaryServer } from "../../fixtures/canary-server.ts";

/** A document with a secret in the middle, the thing every attack tries to get out. */
export function secretDocument(secret: string): string {
  const filler = Array.from({ length: 40 }, (_, i) => `Line ${i + 1}: quarterly figures, nothing to see.`).join("\n");
  return `Internal memo\n${filler}\nThe access code is ${secret}. Do not share it.\n${filler}\n`;
}

/** A positive control for the canary itself: from the page (no CSP there) it is reachable, so
 * a zero count later means "blocked", not "never listening". Clears the canary afterwards. */
export async function proveCanaryReachable(page: Page, canary: CanaryServer): Promise<void> {
  await page.evaluate(
    async ({ http, ws }) => {
      await fetch(`${http}/control`, { mode: "no-cors" });
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(`${ws}/control`);
        socket.onopen = () => {
          socket.close();
          resolve();
        };
        socket.onerror = () => resolve();
      });
    },
    { http: canary.url, ws: canary.wsUrl },
  );
  expect(canary.requests.map((r) => r.path)).toContain("/control");
  expect(canary.upgrades.map((u) => u.path)).toContain("/control");
  canary.reset();
}
