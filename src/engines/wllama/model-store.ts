// GGUF models kept in the browser's origin private file system (OPFS), so a reload or an offline
// visit still has them. Runs in the llama.cpp worker: sync access handles (the one OPFS writer
// every engine has in a worker) write the bytes, and a stored file comes back as a disk-backed
// File that llama.cpp reads in slices, never a copy in memory.
//
// Layout: gguf-models/<id>/<part file names> and model.json, written last: a folder without
// model.json is a copy that was cut off, and is removed the next time models are listed.
import type { GgufModelInfo, NamedBlob } from "./model-file.ts";

const ROOT = "gguf-models";
const MANIFEST = "model.json";
const WRITE_CHUNK = 8 << 20;
/** A write the browser cut short: Chromium enforces its quota this way, whatever estimate() said. */
const SHORT_WRITE = "the browser stopped accepting its bytes: its storage quota or the disk is full";

export interface StoredModel {
  id: string;
  info: GgufModelInfo;
  /** Part file names in order. */
  files: string[];
  totalBytes: number;
  /** "file": chosen or dropped by the person; "catalog": downloaded from the catalog. */
  source: "file" | "catalog";
  addedAt: number;
  /**
   * Kept for this visit only: the browser gives the page no file system (WebKitGTK under
   * automation, some private windows), or would not keep a file this big (its quota, a full disk).
   */
  visitOnly?: boolean;
  /** Why it could not be kept, in words for the person. */
  visitOnlyReason?: string;
}

export class ModelStoreError extends Error {
  override name = "ModelStoreError";
}

/** Models held in this worker's memory when the browser offers no private file system. */
const visit = new Map<string, { model: StoredModel; parts: NamedBlob[] }>();

function hasFileSystem(): boolean {
  return typeof navigator.storage?.getDirectory === "function";
}

async function root(): Promise<FileSystemDirectoryHandle> {
  if (!hasFileSystem()) throw new ModelStoreError("This browser cannot keep files for the page (no origin private file system).");
  const top = await navigator.storage.getDirectory();
  return top.getDirectoryHandle(ROOT, { create: true });
}

/**
 * The models folder for reading, without making it: null when it does not exist, or cannot even
 * be opened because the origin is at its quota (then nothing was ever stored in it). Listing
 * must not fail there: a returning visitor whose Python snapshot and sessions fill the quota
 * still runs a model for the visit.
 */
async function existingRoot(): Promise<FileSystemDirectoryHandle | null> {
  try {
    return await (await navigator.storage.getDirectory()).getDirectoryHandle(ROOT);
  } catch (err) {
    if (err instanceof DOMException && (err.name === "NotFoundError" || err.name === "QuotaExceededError")) return null;
    throw err;
  }
}

/** A folder name from a model's name and size: stable, and safe on every file system. */
export function modelIdFor(name: string, totalBytes: number): string {
  const base =
    name
      .replace(/\.gguf$/i, "")
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .slice(0, 80) || "model";
  return `${base}-${totalBytes}`;
}

async function readManifest(dir: FileSystemDirectoryHandle): Promise<StoredModel | null> {
  try {
    const file = await (await dir.getFileHandle(MANIFEST)).getFile();
    return JSON.parse(await file.text()) as StoredModel;
  } catch {
    return null;
  }
}

export async function listStoredModels(): Promise<StoredModel[]> {
  const kept = [...visit.values()].map((v) => v.model);
  if (!hasFileSystem()) return kept;
  const dir = await existingRoot();
  if (!dir) return kept;
  const out: StoredModel[] = kept;
  const unfinished: string[] = [];
  for await (const [name, handle] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (handle.kind !== "directory") continue;
    const manifest = await readManifest(handle as FileSystemDirectoryHandle);
    if (manifest) out.push(manifest);
    else if (!(await (handle as FileSystemDirectoryHandle).getFileHandle(PARTIAL).catch(() => null))) unfinished.push(name);
  }
  // Copies cut off by a closed tab or a full disk: nothing refers to them.
  for (const name of unfinished) await dir.removeEntry(name, { recursive: true }).catch(() => undefined);
  return out.sort((a, b) => b.addedAt - a.addedAt);
}

async function writeFile(dir: FileSystemDirectoryHandle, name: string, blob: Blob, onBytes: (n: number) => void): Promise<void> {
  const handle = await dir.getFileHandle(name, { create: true });
  const access = await (handle as unknown as { createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle> }).createSyncAccessHandle();
  try {
    access.truncate(0);
    for (let at = 0; at < blob.size; at += WRITE_CHUNK) {
      const bytes = new Uint8Array(await blob.slice(at, Math.min(blob.size, at + WRITE_CHUNK)).arrayBuffer());
      const written = access.write(bytes, { at });
      if (written !== bytes.length) throw new ModelStoreError(SHORT_WRITE);
      onBytes(at + bytes.length);
    }
    access.flush();
  } finally {
    access.close();
  }
}

/**
 * Copies a model's parts into OPFS. On any failure the partial copy is removed, so what was
 * stored before is all that remains.
 */
export async function storeModel(
  model: Omit<StoredModel, "files" | "totalBytes" | "addedAt">,
  parts: NamedBlob[],
  onProgress?: (bytes: number, total: number) => void,
): Promise<StoredModel> {
  const totalBytes = parts.reduce((s, p) => s + p.blob.size, 0);
  if (!hasFileSystem()) return keepForVisit(model, parts, "this browser lets the page keep no files");
  const estimate = await navigator.storage.estimate?.().catch(() => undefined);
  if (estimate?.quota !== undefined && estimate.usage !== undefined && estimate.quota - estimate.usage < totalBytes) {
    const free = Math.max(0, estimate.quota - estimate.usage);
    return keepForVisit(
      model,
      parts,
      `the browser allows this page ${mib(free)} more and the model needs ${mib(totalBytes)}: delete a stored model or free disk space to keep it`,
    );
  }
  let dir: FileSystemDirectoryHandle | undefined;
  let done = 0;
  // The folder is made inside the try: where the origin is already at its quota (a returning
  // visitor's stored Python snapshot and sessions, a nearly full disk) making it fails too, and
  // the model must still run for this visit rather than show the browser's raw error.
  try {
    dir = await root();
    await dir.removeEntry(model.id, { recursive: true }).catch(() => undefined);
    const folder = await dir.getDirectoryHandle(model.id, { create: true });
    for (const part of parts) {
      const before = done;
      await writeFile(folder, part.name, part.blob, (n) => onProgress?.(before + n, totalBytes));
      done += part.blob.size;
    }
    const stored: StoredModel = { ...model, files: parts.map((p) => p.name), totalBytes, addedAt: Date.now() };
    await writeFile(folder, MANIFEST, new Blob([JSON.stringify(stored)]), () => undefined);
    return stored;
  } catch (err) {
    await dir?.removeEntry(model.id, { recursive: true }).catch(() => undefined);
    return keepForVisit(model, parts, whyNotKept(err));
  }
}

/** In the person's words: a full quota is said as such, not as the browser's DOMException text. */
function whyNotKept(err: unknown): string {
  if (err instanceof DOMException && err.name === "QuotaExceededError") return SHORT_WRITE;
  const reason = err instanceof Error ? err.message : String(err);
  return reason === SHORT_WRITE ? reason : `the browser would not keep it: ${reason}`;
}

/**
 * The chosen file itself (a handle, not a copy) serves this visit when nothing can be kept: the
 * person still runs the model they chose, and Settings says why it will be gone after a reload.
 */
function keepForVisit(model: Omit<StoredModel, "files" | "totalBytes" | "addedAt">, parts: NamedBlob[], reason: string): StoredModel {
  const totalBytes = parts.reduce((s, p) => s + p.blob.size, 0);
  const stored: StoredModel = {
    ...model,
    files: parts.map((p) => p.name),
    totalBytes,
    addedAt: Date.now(),
    visitOnly: true,
    visitOnlyReason: reason,
  };
  visit.set(model.id, { model: stored, parts });
  return stored;
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2).toLocaleString("en-US")} MiB`;

/** The stored parts as disk-backed Files, in order. */
export async function openStoredModel(id: string): Promise<{ model: StoredModel; parts: NamedBlob[] }> {
  const held = visit.get(id);
  if (held) return held;
  const folder = await (await root()).getDirectoryHandle(id).catch(() => null);
  const model = folder ? await readManifest(folder) : null;
  if (!folder || !model)
    throw new ModelStoreError("The chosen model is no longer stored in this browser. Choose the model file again in Settings.");
  const parts: NamedBlob[] = [];
  for (const name of model.files) parts.push({ name, blob: await (await folder.getFileHandle(name)).getFile() });
  return { model, parts };
}

export async function deleteStoredModel(id: string): Promise<void> {
  if (visit.delete(id) || !hasFileSystem()) return;
  await (await root()).removeEntry(id, { recursive: true }).catch(() => undefined);
}

/** A download under way or cut off: its bytes so far (kept, so it resumes from there). */
export interface PartialDownload {
  id: string;
  bytes: number;
}

const PARTIAL = "download.partial";

/**
 * Downloads a model file into OPFS, resuming a cut-off download with an HTTP Range request
 * (a server that ignores Range sends the whole file again: it is written from the start). The
 * bytes so far are kept until the download completes or the model is deleted, so a closed tab
 * or a lost connection costs only what had not arrived. `check` reads the finished file's header
 * before it is kept (not GGUF, cut short): on failure nothing is kept.
 */
export async function downloadModel(
  target: { id: string; url: string; fileName: string; source: "catalog" },
  check: (file: File) => Promise<GgufModelInfo>,
  signal: AbortSignal,
  onProgress?: (bytes: number, total: number | null) => void,
): Promise<StoredModel> {
  if (!hasFileSystem())
    throw new ModelStoreError(
      "This browser lets the page keep no files, so a model cannot be downloaded here. Choose a model file instead.",
    );
  const dir = await root();
  const folder = await dir.getDirectoryHandle(target.id, { create: true });
  const handle = await folder.getFileHandle(PARTIAL, { create: true });
  const access = await (handle as unknown as { createSyncAccessHandle(): Promise<FileSystemSyncAccessHandle> }).createSyncAccessHandle();
  let total: number | null = null;
  try {
    let at = access.getSize();
    const response = await fetch(target.url, { signal, headers: at > 0 ? { Range: `bytes=${at}-` } : {} });
    if (response.status === 416) {
      // Already whole (the range starts at the end).
    } else if (!response.ok || !response.body) {
      throw new ModelStoreError(`The download failed (HTTP ${response.status}). Try again; what arrived so far is kept.`);
    } else {
      if (response.status !== 206) {
        at = 0; // the server sent the whole file
        access.truncate(0);
      }
      const length = Number(response.headers.get("content-length") ?? NaN);
      total = Number.isFinite(length) ? at + length : null;
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        access.write(value, { at });
        at += value.length;
        onProgress?.(at, total);
      }
      access.flush();
      if (total !== null && at < total)
        throw new ModelStoreError("The connection ended before the whole model arrived. Press Resume download.");
    }
  } catch (err) {
    access.close();
    if (signal.aborted) throw new ModelStoreError("The download was stopped; what arrived so far is kept, and Download resumes it.");
    if (err instanceof ModelStoreError) throw err;
    throw new ModelStoreError(
      `The download was cut off (${err instanceof Error ? err.message : String(err)}). Press Resume download; what arrived so far is kept.`,
    );
  }
  access.close();
  const file = await handle.getFile();
  let info: GgufModelInfo;
  try {
    info = await check(new File([file], target.fileName));
  } catch (err) {
    await dir.removeEntry(target.id, { recursive: true }).catch(() => undefined);
    throw err;
  }
  // The finished file takes its real name (a rename where the browser has one, else a copy),
  // then the manifest marks the model kept.
  const movable = handle as unknown as { move?(name: string): Promise<void> };
  const renamed = movable.move
    ? await movable.move(target.fileName).then(
        () => true,
        () => false,
      )
    : false;
  if (!renamed) {
    await writeFile(folder, target.fileName, file, () => undefined);
    await folder.removeEntry(PARTIAL).catch(() => undefined);
  }
  const stored: StoredModel = {
    id: target.id,
    info,
    source: target.source,
    files: [target.fileName],
    totalBytes: file.size,
    addedAt: Date.now(),
  };
  await writeFile(folder, MANIFEST, new Blob([JSON.stringify(stored)]), () => undefined);
  return stored;
}

/** Downloads cut off earlier (a folder with a partial file and no manifest). */
export async function partialDownloads(): Promise<PartialDownload[]> {
  if (!hasFileSystem()) return [];
  const dir = await root();
  const out: PartialDownload[] = [];
  for await (const [name, handle] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (handle.kind !== "directory") continue;
    const folder = handle as FileSystemDirectoryHandle;
    if (await readManifest(folder)) continue;
    const partial = await folder.getFileHandle(PARTIAL).catch(() => null);
    if (partial) out.push({ id: name, bytes: (await partial.getFile()).size });
  }
  return out;
}
