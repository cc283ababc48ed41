// Counting the characters of UTF-8 bytes without decoding them. The REPL decodes every document
// itself (it must: `context` is a Python str), so building JS strings of the whole file here
// only to count them would decode each file twice. This walks the bytes once, checks they are
// strict UTF-8 exactly as TextDecoder's fatal mode and Python's codec do (no overlongs, no
// surrogates, nothing above U+10FFFF, no truncated sequence), and counts code points.

export class Utf8Counter {
  /** Code points seen in complete sequences. */
  chars = 0;
  valid = true;
  private need = 0;
  private lower = 0x80;
  private upper = 0xbf;

  push(bytes: Uint8Array): void {
    if (!this.valid) return;
    // State in locals: this loop runs once per byte of documents of hundreds of megabytes.
    let { need, lower, upper, chars } = this;
    const n = bytes.length;
    for (let i = 0; i < n; i++) {
      const b = bytes[i]!;
      if (need === 0) {
        if (b < 0x80) {
          chars++;
          continue;
        }
        if (b >= 0xc2 && b <= 0xdf) need = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          if (b === 0xe0) lower = 0xa0;
          else if (b === 0xed) upper = 0x9f; // no surrogates
          need = 2;
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) lower = 0x90;
          else if (b === 0xf4) upper = 0x8f; // nothing above U+10FFFF
          need = 3;
        } else {
          this.valid = false;
          return;
        }
        continue;
      }
      if (b < lower || b > upper) {
        this.valid = false;
        return;
      }
      lower = 0x80;
      upper = 0xbf;
      if (--need === 0) chars++;
    }
    Object.assign(this, { need, lower, upper, chars });
  }

  /** Between characters: the next byte starts one (a caller may count a pure-ASCII run itself). */
  get atBoundary(): boolean {
    return this.need === 0;
  }

  /** False when the bytes ended inside a character. */
  finish(): boolean {
    if (this.need > 0) this.valid = false;
    return this.valid;
  }
}
