// Long text cut into pieces the page can insert one short task at a time. Cuts fall on a line
// break, else on a space, near the limit, so words stay whole where the text allows it.

/** Characters per piece: inserting and laying out one stays far under 50 ms. */
export const PLAIN_PIECE = 8 * 1024;

export function splitPlain(text: string, max = PLAIN_PIECE): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const window = text.slice(start, start + max);
    let cut = window.lastIndexOf("\n");
    if (cut < max / 2) cut = window.lastIndexOf(" ");
    if (cut < max / 2) cut = max - 1;
    // Never split a surrogate pair: the halves would show as two replacement characters.
    const code = text.charCodeAt(start + cut);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    pieces.push(text.slice(start, start + cut + 1));
    start += cut + 1;
  }
  if (start < text.length || !pieces.length) pieces.push(text.slice(start));
  return pieces;
}
