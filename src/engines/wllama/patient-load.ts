// A model load that never finishes gets a second chance in a fresh worker, then a clear message.
// Seen once in CI (Firefox, a busy machine): llama.cpp's load sat at "Reading the model…" for
// three minutes with no error, and the question waited with it. Loads measured here take 5–10 s
// for 0.5–1 GB (bench/RESULTS.md), so the patience below is many times that. No DOM.
import { EngineError } from "../errors.ts";

/**
 * How long a load may take before it counts as stalled: 90 s, plus a minute per GiB of model.
 * Three times that when the load cannot be tried again (a model kept only in the worker's memory):
 * giving up then ends in an error, and WebKitGTK's one-thread compat build took 33 s for an 11 MB
 * model on an idle machine, so a busy one can pass 90 s on a load that would have finished.
 */
export function loadPatienceMs(totalBytes: number, canRetry = true): number {
  return (90_000 + Math.round((60_000 * totalBytes) / 1024 ** 3)) * (canRetry ? 1 : 3);
}

export class ModelLoadStalledError extends EngineError {
  override name = "ModelLoadStalledError";
  constructor(modelName: string, seconds: number, tries: number) {
    super(
      tries > 1
        ? `llama.cpp did not finish loading ${modelName} in ${seconds} s, twice (a fresh llama.cpp worker did not help). Reload the page and ask again; if it happens again, set Threads to 1 in Settings (Model), or choose a smaller model.`
        : // A model kept only in the stalled worker's memory is gone with it: a fresh worker
          // could only fail to find it, and that failure would hide this one.
          `llama.cpp did not finish loading ${modelName} in ${seconds} s. This browser kept the model only in llama.cpp's worker for this visit, so it cannot be tried again in a fresh one: reload the page, choose the model file again and ask again; if it happens again, set Threads to 1 in Settings (Model), or choose a smaller model.`,
    );
  }
}

/** One try: the load under way, and how to give up on it (ending the worker it runs in). */
export interface LoadAttempt<T> {
  loaded: Promise<T>;
  abandon: () => void;
}

/**
 * Runs `attempt`; when it has not finished within `patienceMs`, abandons it and runs a fresh one
 * (unless `retry` is false: the model lives only in the abandoned worker); when that one stalls
 * too, throws ModelLoadStalledError. A load that fails fails at once.
 */
export async function loadPatiently<T>(attempt: () => LoadAttempt<T>, patienceMs: number, modelName: string, retry = true): Promise<T> {
  const most = retry ? 2 : 1;
  for (let tries = 1; ; tries++) {
    const { loaded, abandon } = attempt();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<"stalled">((resolve) => (timer = setTimeout(() => resolve("stalled"), patienceMs)));
    try {
      const outcome = await Promise.race([loaded.then((value) => ({ value })), stalled]);
      if (outcome !== "stalled") return outcome.value;
    } finally {
      clearTimeout(timer);
    }
    loaded.catch(() => undefined); // it is given up: a late failure is nobody's
    abandon();
    if (tries >= most) throw new ModelLoadStalledError(modelName, Math.round(patienceMs / 1000), tries);
  }
}
