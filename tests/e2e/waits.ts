// The two ways a browser test lets time pass. Either it waits for something the page (or the
// scripted server) shows, polling with a generous limit, so a busy machine only makes it slower;
// or it proves that something does NOT happen for a while (a canary stays silent, a timer never
// runs), the one case where a fixed span is the point, named so it cannot be taken for a wait.
// A bare sleep in a test is neither: on a loaded machine it is too short, on an idle one too long.

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  /** The most to wait, in ms: generous, since the machine is shared. */
  timeout: number;
  /** What is waited for, for the message when it never comes. */
  what: string;
  /** Between two checks, in ms. */
  interval?: number;
}

/**
 * Calls `check` until it returns a truthy value, and returns that value. A check that throws is
 * tried again (a page between two states, a navigation under way); the last error is in the
 * message if the limit passes.
 */
export async function waitUntil<T>(check: () => T | Promise<T>, { timeout, what, interval = 100 }: WaitOptions): Promise<NonNullable<T>> {
  const until = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      const detail = last === undefined ? "" : ` (last error: ${last instanceof Error ? last.message : String(last)})`;
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${detail}`);
    }
    await pause(interval);
  }
}

/**
 * Proves that nothing happens for `ms`: `check` (which throws, an `expect`, when the thing did
 * happen) runs throughout and once at the end. Only for "this must stay silent/absent", never as
 * a way to let the page catch up: for that, wait on what it shows.
 */
export async function expectNothingFor(ms: number, check: () => void | Promise<void>, interval = 100): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await check();
    await pause(Math.min(interval, Math.max(0, until - Date.now())));
  }
  await check();
}
