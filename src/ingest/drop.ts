// Files from a drag-and-drop, folders included. A dropped folder does not fill in
// `webkitRelativePath` (only <input webkitdirectory> does): its files are reached by walking the
// File System Entry API, and their paths come from each entry's `fullPath`.
import { FileReadError } from "./errors.ts";
import { normalizePath } from "./paths.ts";
import type { IngestInput, IngestProblem } from "./types.ts";

/** The parts of FileSystemEntry this walk uses (so tests can supply in-memory trees). */
export interface DroppedEntry {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly name: string;
  readonly fullPath: string;
}
export interface DroppedFileEntry extends DroppedEntry {
  file(success: (file: File) => void, failure?: (err: unknown) => void): void;
}
export interface DroppedDirectoryEntry extends DroppedEntry {
  createReader(): { readEntries(success: (entries: DroppedEntry[]) => void, failure?: (err: unknown) => void): void };
}

export interface DroppedFiles {
  inputs: IngestInput[];
  /** Entries the browser would not hand over (permissions, vanished files). */
  problems: IngestProblem[];
}

function isDirectory(entry: DroppedEntry): entry is DroppedDirectoryEntry {
  return entry.isDirectory;
}

async function readAll(dir: DroppedDirectoryEntry): Promise<DroppedEntry[]> {
  const reader = dir.createReader();
  const all: DroppedEntry[] = [];
  // Chrome returns at most 100 entries per call: keep reading until an empty batch.
  for (;;) {
    const batch = await new Promise<DroppedEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

/** Walk dropped entries (files and folders, depth first) into inputs with their paths. */
export async function collectEntries(entries: readonly DroppedEntry[]): Promise<DroppedFiles> {
  const result: DroppedFiles = { inputs: [], problems: [] };
  const walk = async (entry: DroppedEntry): Promise<void> => {
    const path = normalizePath(entry.fullPath || entry.name);
    try {
      if (isDirectory(entry)) {
        const children = await readAll(entry);
        children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const child of children) await walk(child);
      } else if (entry.isFile) {
        const file = await new Promise<File>((resolve, reject) => (entry as DroppedFileEntry).file(resolve, reject));
        result.inputs.push({ file, path });
      }
    } catch (err) {
      const error = new FileReadError(err instanceof Error ? err : new Error(String(err)));
      result.problems.push({ path, code: error.code, message: error.message });
    }
  };
  for (const entry of entries) await walk(entry);
  return result;
}

/**
 * Everything in a drop event's DataTransfer. Call it inside the `drop` handler: the browser
 * empties the DataTransfer once the handler returns, so the entries are taken synchronously.
 */
export function collectDroppedFiles(dataTransfer: DataTransfer): Promise<DroppedFiles> {
  const entries: DroppedEntry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(dataTransfer.items ?? [])) {
    if (item.kind !== "file") continue;
    const entry = typeof item.webkitGetAsEntry === "function" ? item.webkitGetAsEntry() : null;
    // Folders need the entry walk; a file is taken as the File the browser hands over. WebKit's
    // entry for a file it has no path for (a page-made drop) fails with "Path does not exist".
    const file = entry?.isDirectory ? null : item.getAsFile();
    if (file) loose.push(file);
    else if (entry) entries.push(entry as unknown as DroppedEntry);
  }
  if (entries.length === 0 && loose.length === 0) loose.push(...Array.from(dataTransfer.files ?? []));
  return collectEntries(entries).then((found) => ({
    inputs: [...found.inputs, ...loose.map((file) => ({ file, path: normalizePath(file.name) }))],
    problems: found.problems,
  }));
}
