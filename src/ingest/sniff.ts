// What a file is, judged from its first bytes (and, for a few unambiguous cases, its name):
// text, a parsed format that says so in its head (formats/: PDF), zip, or a binary format we
// name for the user.
import { detectBom } from "./decode.ts";
import { formatOfHead, type ExtractedKind } from "./formats/index.ts";
import { extensionOf } from "./paths.ts";

/** How many leading bytes sniffing looks at. */
export const SNIFF_BYTES = 8192;

export type Sniffed =
  | { type: "text" }
  /** A parsed format recognised by its first bytes (`{ type: "pdf" }`). */
  | { type: ExtractedKind }
  | { type: "zip" }
  /** `what` completes "looks like a binary file (…)"; `unsupported` names formats we recognise. */
  | { type: "binary"; what: string; unsupported?: boolean; archive?: boolean };

interface Magic {
  at: number;
  bytes: readonly number[];
  what: string;
  unsupported?: boolean;
  archive?: boolean;
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

// Signatures distinctive enough to trust even when the rest of the head looks like text.
const MAGICS: readonly Magic[] = [
  { at: 0, bytes: [0x89, ...ascii("PNG\r\n\x1a\n")], what: "PNG image" },
  { at: 0, bytes: [0xff, 0xd8, 0xff], what: "JPEG image" },
  { at: 0, bytes: ascii("GIF87a"), what: "GIF image" },
  { at: 0, bytes: ascii("GIF89a"), what: "GIF image" },
  { at: 0, bytes: ascii("RIFF"), what: "RIFF media (WAV, AVI or WebP)" },
  { at: 0, bytes: [0x49, 0x49, 0x2a, 0x00], what: "TIFF image" },
  { at: 0, bytes: [0x4d, 0x4d, 0x00, 0x2a], what: "TIFF image" },
  { at: 4, bytes: ascii("ftyp"), what: "MP4/QuickTime media" },
  { at: 0, bytes: ascii("OggS"), what: "Ogg media" },
  { at: 0, bytes: ascii("fLaC"), what: "FLAC audio" },
  { at: 0, bytes: [0x1a, 0x45, 0xdf, 0xa3], what: "Matroska/WebM media" },
  { at: 0, bytes: [0x7f, ...ascii("ELF")], what: "ELF executable" },
  { at: 0, bytes: [0xcf, 0xfa, 0xed, 0xfe], what: "Mach-O executable" },
  { at: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], what: "Java class or Mach-O executable" },
  { at: 0, bytes: [0x00, ...ascii("asm")], what: "WebAssembly module" },
  { at: 0, bytes: ascii("SQLite format 3\0"), what: "SQLite database" },
  { at: 0, bytes: ascii("wOFF"), what: "WOFF font" },
  { at: 0, bytes: ascii("wOF2"), what: "WOFF2 font" },
  { at: 0, bytes: [0x1f, 0x8b], what: "gzip archive", unsupported: true, archive: true },
  { at: 0, bytes: [0xfd, ...ascii("7zXZ"), 0x00], what: "xz archive", unsupported: true, archive: true },
  { at: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: "7-Zip archive", unsupported: true, archive: true },
  { at: 0, bytes: ascii("Rar!\x1a\x07"), what: "RAR archive", unsupported: true, archive: true },
  { at: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd], what: "zstd archive", unsupported: true, archive: true },
  { at: 257, bytes: ascii("ustar"), what: "tar archive", unsupported: true, archive: true },
  {
    at: 0,
    bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    what: "legacy Office document (.doc/.xls/.ppt)",
    unsupported: true,
  },
];

// Extensions that are binary whatever the first bytes say. Only unambiguous ones: `.dat` or
// `.bin` may hold text, so content decides for them.
const BINARY_EXTENSIONS: Readonly<Record<string, string>> = {
  png: "PNG image",
  jpg: "JPEG image",
  jpeg: "JPEG image",
  gif: "GIF image",
  bmp: "BMP image",
  ico: "icon",
  webp: "WebP image",
  tif: "TIFF image",
  tiff: "TIFF image",
  psd: "Photoshop image",
  heic: "HEIC image",
  avif: "AVIF image",
  mp3: "MP3 audio",
  wav: "WAV audio",
  flac: "FLAC audio",
  ogg: "Ogg media",
  m4a: "audio",
  mp4: "video",
  mov: "video",
  mkv: "video",
  webm: "video",
  avi: "video",
  exe: "Windows executable",
  dll: "Windows library",
  so: "shared library",
  dylib: "shared library",
  o: "object file",
  a: "static library",
  obj: "object file",
  lib: "static library",
  class: "Java class",
  pyc: "Python bytecode",
  wasm: "WebAssembly module",
  ttf: "TrueType font",
  otf: "OpenType font",
  woff: "WOFF font",
  woff2: "WOFF2 font",
  eot: "font",
  sqlite: "SQLite database",
  db: "database",
  iso: "disk image",
  dmg: "disk image",
};

const ARCHIVE_EXTENSIONS: Readonly<Record<string, string>> = {
  gz: "gzip archive",
  tgz: "gzip archive",
  bz2: "bzip2 archive",
  xz: "xz archive",
  "7z": "7-Zip archive",
  rar: "RAR archive",
  zst: "zstd archive",
  tar: "tar archive",
};

function startsWithAt(head: Uint8Array, at: number, bytes: readonly number[]): boolean {
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes[i]) return false;
  return true;
}

/** A local file header, or the end record of an empty archive. */
export function isZipHead(head: Uint8Array): boolean {
  return startsWithAt(head, 0, [0x50, 0x4b, 0x03, 0x04]) || startsWithAt(head, 0, [0x50, 0x4b, 0x05, 0x06]);
}

/**
 * Control characters other than whitespace, backspace and ESC (ANSI colours in logs). Text
 * has almost none; binary formats without NUL bytes in their head have many.
 */
function controlRatio(head: Uint8Array): number {
  let controls = 0;
  for (const b of head) {
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x0b && b !== 0x08 && b !== 0x1b) {
      controls++;
    }
  }
  return head.length ? controls / head.length : 0;
}

/** Classify a file from its first SNIFF_BYTES bytes and its name. */
export function sniff(head: Uint8Array, name: string): Sniffed {
  const format = formatOfHead(head);
  if (format) return { type: format.kind };
  if (isZipHead(head)) return { type: "zip" };
  for (const m of MAGICS) {
    if (startsWithAt(head, m.at, m.bytes)) {
      return { type: "binary", what: m.what, ...(m.unsupported ? { unsupported: true } : {}), ...(m.archive ? { archive: true } : {}) };
    }
  }
  const ext = extensionOf(name);
  const archive = ARCHIVE_EXTENSIONS[ext];
  if (archive) return { type: "binary", what: archive, unsupported: true, archive: true };
  const known = BINARY_EXTENSIONS[ext];
  if (known) return { type: "binary", what: `${known}, .${ext}` };
  // UTF-16 and UTF-32 text is full of NUL bytes: a byte-order mark says it is text.
  if (detectBom(head)) return { type: "text" };
  if (head.includes(0)) return { type: "binary", what: "it has NUL bytes in its first 8 KB" };
  if (controlRatio(head) > 0.1) return { type: "binary", what: "its first 8 KB are mostly control characters" };
  return { type: "text" };
}

/** Extensions whose names alone say "archive": not expanded when found inside a zip. */
export function isArchiveName(name: string): boolean {
  const ext = extensionOf(name);
  return ext in ARCHIVE_EXTENSIONS || NESTED_ZIP_EXTENSIONS.has(ext);
}

// Zip-based formats that are archives rather than documents.
const NESTED_ZIP_EXTENSIONS = new Set(["zip", "jar", "war", "ear", "apk", "aar", "whl", "nupkg", "xpi", "crx", "ipa"]);

/** Binary by name alone (images, executables, fonts…): skipped in a zip without inflating. */
export function binaryKindFromName(name: string): string | null {
  const ext = extensionOf(name);
  const known = BINARY_EXTENSIONS[ext];
  return known ? `${known}, .${ext}` : null;
}
