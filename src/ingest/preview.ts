// The first lines of a document, for the file list: built from decoded pieces as they stream
// by, so a 1 GB file never has to exist as one string to get its first 20 lines.

export const PREVIEW_MAX_LINES = 20;
export const PREVIEW_MAX_CHARS = 2000;

export class PreviewBuilder {
  private text = "";
  private full = false;

  constructor(
    private readonly maxLines = PREVIEW_MAX_LINES,
    private readonly maxChars = PREVIEW_MAX_CHARS,
  ) {}

  get done(): boolean {
    return this.full;
  }

  push(piece: string): void {
    if (this.full || piece.length === 0) return;
    // Look at no more of the piece than could still fit: pieces may be megabytes long.
    this.text += piece.slice(0, this.maxChars + 1 - this.text.length);
    let newlines = 0;
    for (let i = 0; i < this.text.length; i++) {
      if (this.text.charCodeAt(i) === 10 && ++newlines === this.maxLines) {
        this.text = this.text.slice(0, i);
        this.full = true;
        return;
      }
    }
    if (this.text.length > this.maxChars) {
      let end = this.maxChars;
      // Never cut between the two halves of a surrogate pair.
      const last = this.text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end--;
      this.text = this.text.slice(0, end);
      this.full = true;
    }
  }

  get value(): string {
    return this.text;
  }
}

/** The preview of a whole string. */
export function previewOf(text: string): string {
  const builder = new PreviewBuilder();
  builder.push(text);
  return builder.value;
}
