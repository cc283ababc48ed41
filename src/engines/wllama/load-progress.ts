// How far llama.cpp in the page has got with loading a model, by stage and by bytes (issue 34
// #2): the page said "50% loaded" for 50 s while an 11 MB file loaded, with nothing to tell a
// slow start from a stuck one. The worker passes wllama files that count the bytes read from them
// (wllama copies a file into its heap through stream(), or reads it on demand through slice()),
// and says "Starting llama.cpp…", "Reading the model: 3.1 MB of 11 MB", then "Setting up…".

/** One report of a load: the words the page shows and the share done (0 to 1). */
export interface WllamaLoadProgress {
  detail: string;
  fraction: number;
}

/** "3.1 MB", "312 MB": as a download page gives sizes. */
export function megabytes(bytes: number): string {
  const mb = bytes / 1e6;
  return `${mb.toLocaleString("en-US", { maximumFractionDigits: mb < 10 ? 1 : 0 })} MB`;
}

/** A File that reports how many of its bytes were read, whichever way wllama reads it. */
export function countingFile(file: File, onRead: (bytes: number) => void): File {
  class Counting extends File {
    override stream(): ReturnType<File["stream"]> {
      const counter = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onRead(chunk.byteLength);
          controller.enqueue(chunk);
        },
      });
      return super.stream().pipeThrough(counter) as ReturnType<File["stream"]>;
    }
    override slice(start?: number, end?: number, contentType?: string): Blob {
      const part = super.slice(start, end, contentType);
      onRead(part.size);
      return part;
    }
  }
  return new Counting([file], file.name, { type: file.type, lastModified: file.lastModified });
}

/** The share of a load before the first byte is read (starting llama.cpp), and after the last (setting up). */
const STARTED = 0.05;
const READ = 0.9;
/** Reports at most this often while bytes arrive: each one crosses two workers to the page. */
const REPORT_EVERY_MS = 150;

/**
 * Follows one load: `start()` when llama.cpp starts, `files()` to wrap the model's parts. The
 * stage moves on by itself from reading to setting up when the last byte has been read.
 */
export function loadReporter(report: (p: WllamaLoadProgress) => void, windowTokens: number, now = () => performance.now()) {
  let read = 0;
  let total = 0;
  let last = -Infinity;
  let settingUp = false;
  const onRead = (bytes: number) => {
    if (settingUp) return;
    read = Math.min(total, read + bytes);
    if (read >= total) {
      settingUp = true;
      report({ detail: `Setting up the model and its ${windowTokens.toLocaleString("en-US")}-token memory…`, fraction: READ });
      return;
    }
    if (now() - last < REPORT_EVERY_MS) return;
    last = now();
    report({
      detail: `Reading the model: ${megabytes(read)} of ${megabytes(total)}`,
      fraction: STARTED + (READ - STARTED) * (read / total),
    });
  };
  return {
    start(): void {
      report({ detail: "Starting llama.cpp…", fraction: STARTED / 2 });
    },
    files(parts: File[]): File[] {
      // No report yet: wllama starts its own worker and compiles llama.cpp before the first read.
      total = parts.reduce((n, f) => n + f.size, 0);
      return parts.map((f) => countingFile(f, onRead));
    },
  };
}
