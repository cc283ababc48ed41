// A tiny hand-written SVG chart generator (no chart library is installed, and none is needed for
// a line chart and a grouped bar chart). Output is a standalone SVG string, dark on white; its
// parts carry classes (bg, ink, ink-soft, grid, axis) so a page can recolour them for its theme.

export const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

export interface Point {
  x: number;
  y: number;
}

export interface LineSeries {
  name: string;
  points: Point[];
  color?: string;
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  /** Logarithmic x axis (context lengths span 8K to 8M). */
  xLog?: boolean;
  yMin?: number;
  yMax?: number;
  formatX?: (x: number) => string;
  formatY?: (y: number) => string;
  width?: number;
  height?: number;
}

export interface BarSeries {
  name: string;
  values: Array<number | null>;
  color?: string;
}

export interface BarChartOptions {
  title: string;
  yLabel: string;
  categories: string[];
  series: BarSeries[];
  formatY?: (y: number) => string;
  width?: number;
  height?: number;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const r = (n: number) => Number(n.toFixed(2));

/** About `count` round tick values covering [min, max] (steps of 1, 2 or 5 × 10^k). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

function frame(width: number, height: number, legendWidth: number, bottom = 56, left = 70): Frame {
  return { width, height, left, right: width - legendWidth - 20, top: 44, bottom: height - bottom };
}

function open(f: Frame, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect class="bg" width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
    `<text x="${f.width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="600" class="ink">${escapeXml(title)}</text>`,
  ];
}

function yAxis(f: Frame, ticks: number[], y: (v: number) => number, label: string, fmt: (v: number) => string): string[] {
  const out: string[] = [];
  for (const t of ticks) {
    const py = r(y(t));
    out.push(`<line x1="${f.left}" x2="${f.right}" y1="${py}" y2="${py}" stroke="#e5e5e5" class="grid"/>`);
    out.push(`<text x="${f.left - 6}" y="${py + 4}" text-anchor="end" fill="#444" class="ink-soft">${escapeXml(fmt(t))}</text>`);
  }
  const mid = (f.top + f.bottom) / 2;
  out.push(
    `<text x="16" y="${mid}" text-anchor="middle" transform="rotate(-90 16 ${mid})" fill="#222" class="ink">${escapeXml(label)}</text>`,
  );
  out.push(`<line x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.bottom}" stroke="#333" class="axis"/>`);
  out.push(`<line x1="${f.left}" x2="${f.right}" y1="${f.bottom}" y2="${f.bottom}" stroke="#333" class="axis"/>`);
  return out;
}

function legend(f: Frame, items: Array<{ name: string; color: string }>): string[] {
  return items.flatMap((item, i) => {
    const y = f.top + 8 + i * 20;
    return [
      `<rect x="${f.right + 16}" y="${y - 9}" width="14" height="10" fill="${item.color}"/>`,
      `<text x="${f.right + 36}" y="${y}" fill="#222" class="ink">${escapeXml(item.name)}</text>`,
    ];
  });
}

const defaultFormat = (v: number) => String(Number(v.toPrecision(4)));

export function lineChart(options: LineChartOptions): string {
  const f = frame(options.width ?? 720, options.height ?? 420, 170);
  const fmtX = options.formatX ?? defaultFormat;
  const fmtY = options.formatY ?? defaultFormat;
  const all = options.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const out = open(f, options.title);
  if (!all.length) {
    out.push(`<text x="${f.width / 2}" y="${f.height / 2}" text-anchor="middle" fill="#888" class="ink-soft">no data</text>`, "</svg>");
    return out.join("\n");
  }
  const tx = (x: number) => (options.xLog ? Math.log10(Math.max(x, 1e-12)) : x);
  let x0 = Math.min(...all.map((p) => tx(p.x)));
  let x1 = Math.max(...all.map((p) => tx(p.x)));
  if (x0 === x1) {
    x0 -= 0.5;
    x1 += 0.5;
  }
  const yLo = options.yMin ?? Math.min(0, ...all.map((p) => p.y));
  let yHi = options.yMax ?? Math.max(...all.map((p) => p.y)) * 1.1;
  if (!(yHi > yLo)) yHi = yLo + 1;
  const pad = (f.right - f.left) * 0.04;
  const x = (v: number) => f.left + pad + ((tx(v) - x0) / (x1 - x0)) * (f.right - f.left - 2 * pad);
  const y = (v: number) => f.bottom - ((v - yLo) / (yHi - yLo)) * (f.bottom - f.top);
  out.push(...yAxis(f, niceTicks(yLo, yHi), y, options.yLabel, fmtY));
  // x ticks at the measured x values: context sizes are few and chosen, so label each one.
  const xs = [...new Set(all.map((p) => p.x))].sort((a, b) => a - b);
  for (const v of xs) {
    const px = r(x(v));
    out.push(`<line x1="${px}" x2="${px}" y1="${f.bottom}" y2="${f.bottom + 5}" stroke="#333" class="axis"/>`);
    out.push(`<text x="${px}" y="${f.bottom + 18}" text-anchor="middle" fill="#444" class="ink-soft">${escapeXml(fmtX(v))}</text>`);
  }
  out.push(
    `<text x="${(f.left + f.right) / 2}" y="${f.height - 12}" text-anchor="middle" fill="#222" class="ink">${escapeXml(options.xLabel)}</text>`,
  );
  const items = options.series.map((s, i) => ({ name: s.name, color: s.color ?? PALETTE[i % PALETTE.length]! }));
  options.series.forEach((s, i) => {
    const color = items[i]!.color;
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    if (pts.length > 1) {
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${r(x(p.x))},${r(y(p.y))}`).join(" ")}"/>`,
      );
    }
    for (const p of pts) {
      out.push(
        `<circle cx="${r(x(p.x))}" cy="${r(y(p.y))}" r="4" fill="${color}"><title>${escapeXml(`${s.name}: ${fmtX(p.x)} → ${fmtY(p.y)}`)}</title></circle>`,
      );
    }
  });
  out.push(...legend(f, items), "</svg>");
  return out.join("\n");
}

export function barChart(options: BarChartOptions): string {
  const n = options.categories.length;
  const width = options.width ?? Math.max(720, 120 + n * (14 * Math.max(1, options.series.length) + 10) + 190);
  const longest = Math.max(0, ...options.categories.map((c) => c.length));
  // Category labels are rotated 45°: leave room below, and on the left for the first one.
  const labelRoom = Math.min(200, longest * 5);
  const f = frame(width, options.height ?? 420 + labelRoom, 170, 40 + labelRoom, Math.max(70, Math.round(labelRoom * 0.75)));
  const fmtY = options.formatY ?? defaultFormat;
  const out = open(f, options.title);
  const values = options.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  if (!n || !values.length) {
    out.push(`<text x="${f.width / 2}" y="${f.height / 2}" text-anchor="middle" fill="#888" class="ink-soft">no data</text>`, "</svg>");
    return out.join("\n");
  }
  const yHi = Math.max(...values, 0) * 1.1 || 1;
  const y = (v: number) => f.bottom - (v / yHi) * (f.bottom - f.top);
  out.push(...yAxis(f, niceTicks(0, yHi), y, options.yLabel, fmtY));
  const slot = (f.right - f.left) / n;
  const barWidth = Math.max(2, (slot * 0.8) / Math.max(1, options.series.length));
  const items = options.series.map((s, i) => ({ name: s.name, color: s.color ?? PALETTE[i % PALETTE.length]! }));
  options.categories.forEach((cat, ci) => {
    const start = f.left + ci * slot + slot * 0.1;
    options.series.forEach((s, si) => {
      const v = s.values[ci];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const top = y(v);
      out.push(
        `<rect x="${r(start + si * barWidth)}" y="${r(top)}" width="${r(barWidth)}" height="${r(f.bottom - top)}" fill="${items[si]!.color}"><title>${escapeXml(`${cat} · ${s.name}: ${fmtY(v)}`)}</title></rect>`,
      );
    });
    const cx = r(f.left + ci * slot + slot / 2);
    out.push(
      `<text x="${cx}" y="${f.bottom + 12}" text-anchor="end" transform="rotate(-45 ${cx} ${f.bottom + 12})" fill="#444" font-size="10" class="ink-soft">${escapeXml(cat)}</text>`,
    );
  });
  out.push(...legend(f, items), "</svg>");
  return out.join("\n");
}
