import { cpus, totalmem } from "node:os";

export function summarize(samples: number[]): { median: number; p10: number; p90: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]!;
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), n: s.length };
}

export const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu.trim()}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}`;
}
