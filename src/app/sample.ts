// The sample document shipped in public/samples (written for this project, CC0), so a first
// visit can try a question before having a file at hand. Served by the app itself and precached
// by the service worker: it works offline like the rest of the page.
import type { IngestInput } from "../ingest/index.ts";

export const SAMPLE_NAME = "harrow-point-lighthouse.md";

export class SampleUnavailableError extends Error {
  override name = "SampleUnavailableError";
  constructor(detail: string) {
    super(`The sample document could not be opened (${detail}). Reload the page, or add a document of your own.`);
  }
}

export async function fetchSample(base: string = document.baseURI): Promise<IngestInput> {
  let res: Response;
  try {
    res = await fetch(new URL(`samples/${SAMPLE_NAME}`, base));
  } catch (err) {
    throw new SampleUnavailableError(err instanceof Error ? err.message : String(err));
  }
  if (!res.ok) throw new SampleUnavailableError(`HTTP ${res.status}`);
  const blob = await res.blob();
  return { file: new File([blob], SAMPLE_NAME, { type: "text/markdown" }), path: SAMPLE_NAME };
}
