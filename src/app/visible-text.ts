// Names (of files, folders, sessions) shown as they are. A right-to-left override makes
// "\u202Egnp.exe.txt" display as "txt.exe.png"; zero-width and other format characters make two
// different names look the same. Every such character is replaced by a visible marker like
// ⟨U+202E⟩ wherever a name is shown or exported as display text. The name itself (the key of
// the document in `context`) is never changed.

/**
 * Controls (C0, DEL, C1), format characters (bidi embeddings, overrides and isolates, LRM/RLM,
 * ALM, zero-width space/joiners, word joiner, BOM, soft hyphen, tag characters), line and
 * paragraph separators, the combining grapheme joiner and the Hangul fillers, which render as
 * nothing at all.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034F\u115F\u1160\u3164\uFFA0]/gu;

const marker = (c: string) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;

/**
 * The text with every invisible or direction-changing character shown as ⟨U+XXXX⟩. For text
 * shown raw and whole (program output in the steps view) `keepLayout` leaves line breaks and
 * tabs as they are.
 */
export function visibleName(text: string, keepLayout = false): string {
  return text.replace(INVISIBLE, (c) => (keepLayout && (c === "\n" || c === "\t" || c === "\r") ? c : marker(c)));
}
