// Offline support and updates: registers the service worker, says when the app is ready to
// work offline, and announces a new version. The new version is applied only when the person
// chooses to, and never while a question is running.
import { registerSW } from "virtual:pwa-register";

export class AppUpdates {
  needRefresh = $state(false);
  offlineReady = $state(false);
  error = $state<string | null>(null);
  private update: ((reload?: boolean) => Promise<void>) | null = null;

  start(tell: (kind: "info" | "warning", text: string) => void): void {
    if (import.meta.env.DEV || !("serviceWorker" in navigator)) return;
    this.update = registerSW({
      immediate: true,
      onNeedRefresh: () => (this.needRefresh = true),
      onOfflineReady: () => {
        this.offlineReady = true;
        tell("info", "Ready to work offline: the app and Python are saved in this browser.");
      },
      onRegisterError: (err: unknown) => {
        this.error = `Offline mode is unavailable: ${err instanceof Error ? err.message : String(err)}`;
        tell("warning", this.error);
      },
    });
  }

  /** Switch to the waiting version and reload the page. */
  apply(): void {
    // workbox-window reloads only for updates it found itself; an update found by the browser's
    // own check is "external" to it. Reload whenever the new worker takes over.
    navigator.serviceWorker?.addEventListener("controllerchange", () => location.reload(), { once: true });
    void this.update?.(true);
  }
}

/**
 * On hosts that cannot send COOP/COEP headers the first visit is not cross-origin isolated;
 * once the service worker controls the page (and adds the headers), reload once. The reload
 * goes to the address the page arrived at: the app takes a settings link's parameters out of
 * the address bar at once, and a first visit through such a link must still show its proposal.
 * (Settings already applied by then propose nothing, so no dialog comes back for them.)
 */
export function reloadIntoIsolation(): void {
  if (!("serviceWorker" in navigator) || globalThis.crossOriginIsolated) return;
  const arrivedAt = location.href;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (globalThis.crossOriginIsolated || sessionStorage.getItem("rlm-isolation-reload")) return;
    sessionStorage.setItem("rlm-isolation-reload", "1");
    location.replace(arrivedAt);
  });
}
