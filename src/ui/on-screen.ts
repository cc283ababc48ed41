// What a person can see of the page: the band between the sticky header and the sticky question
// box. A button behind the question box is not "in view", however the browser counts it, and
// focus must never be put on one (issue 28).

/** The visible band, in viewport pixels. */
export function readingArea(): { top: number; bottom: number } {
  const header = document.querySelector<HTMLElement>("header.top");
  const dock = document.querySelector<HTMLElement>(".ask-dock");
  const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  const bottom = dock ? Math.min(window.innerHeight, dock.getBoundingClientRect().top) : window.innerHeight;
  return { top, bottom: Math.max(top, bottom) };
}

/**
 * Whether a control is wholly in the visible band and nothing lies over it. A block taller than
 * a third of the band counts when its top is in view, with room below to read a few lines.
 */
export function uncovered(el: HTMLElement): boolean {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return false;
  const area = readingArea();
  const tall = r.height > (area.bottom - area.top) / 3;
  const bottom = tall ? r.top + Math.min(r.height, 48) : r.bottom;
  if (r.top < area.top - 1 || bottom > area.bottom + 1) return false;
  const x = Math.min(Math.max(r.left + r.width / 2, 0), window.innerWidth - 1);
  for (const y of [r.top + 2, (r.top + bottom) / 2, bottom - 2]) {
    const hit = document.elementFromPoint(x, y);
    if (!hit || !(el === hit || el.contains(hit))) return false;
  }
  return true;
}

/**
 * Scrolls so the element's top sits near the top of the visible band (a little below it, so the
 * line above shows it is a new part), unless its top is already comfortably in view.
 */
export function bringIntoView(el: HTMLElement, above = 0): void {
  const area = readingArea();
  const top = el.getBoundingClientRect().top - above;
  const comfortable = top >= area.top && top <= area.top + (area.bottom - area.top) * 0.5;
  if (comfortable) return;
  window.scrollBy({ top: top - area.top - 12 });
}
