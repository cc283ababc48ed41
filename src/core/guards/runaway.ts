// M09 inside one turn: a small model can fall into a loop within its own reply ("print(x)\n
// print(x)\n…", the same sentence over and over) and burn its whole token budget. The loop can
// feed the streamed text to this check and stop the generation early; what came before the
// loop is still parsed. Cheap enough to call on every streamed piece.

export interface RunawayOptions {
  /** Shortest repeating unit, in characters (default 12: shorter repeats are often legitimate). */
  minUnit?: number;
  /** Longest unit looked for (default 200). */
  maxUnit?: number;
  /** Back-to-back copies that make it a runaway (default 6). */
  times?: number;
}

/** True when the text ends with the same unit repeated `times` times back to back. */
export function endsInRunawayRepetition(text: string, options: RunawayOptions = {}): boolean {
  const minUnit = options.minUnit ?? 12;
  const maxUnit = options.maxUnit ?? 200;
  const times = options.times ?? 6;
  const tail = text.slice(-maxUnit * times);
  for (let unit = minUnit; unit <= maxUnit && unit * times <= tail.length; unit++) {
    const piece = tail.slice(tail.length - unit);
    // "-----" rulers and "=====" underlines are layout, not a loop.
    if (new Set(piece.replace(/\s/g, "")).size < 3) continue;
    let copies = 1;
    while (copies < times && tail.slice(tail.length - unit * (copies + 1), tail.length - unit * copies) === piece) copies++;
    if (copies >= times) return true;
  }
  return false;
}
