// Small number formats shared by task ids, tables and charts.

/** 28000 -> "28K", 1800000 -> "1.8M", 8000000 -> "8M", 950 -> "950". */
export function formatSize(chars: number): string {
  const trim = (n: number) => String(Number(n.toFixed(n >= 100 ? 0 : 1)));
  if (chars >= 1_000_000) return `${trim(chars / 1_000_000)}M`;
  if (chars >= 1_000) return `${trim(chars / 1_000)}K`;
  return String(chars);
}

export function formatMs(ms: number): string {
  if (ms >= 60_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (ms >= 1_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${Math.round(ms)} ms`;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
