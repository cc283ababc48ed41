// The Qwen models this app offers through WebLLM: WebLLM's own records (generated from the
// installed package) joined with the per-model numbers WebLLM does not carry.
import { architectureFor } from "./architectures.ts";
import { PREBUILT_QWEN_RECORDS } from "./catalog.generated.ts";
import type { CatalogEntry, Quantization, QwenFamily, WebLLMModelRecord } from "./types.ts";

/**
 * Bits stored per weight. MLC's q4*_1 group quantization keeps 4-bit weights plus one scale per
 * group of 32 weights: an f16 scale (q4f16_1) adds 0.5 bit, an f32 scale (q4f32_1) adds 1 bit.
 * Embeddings and the output head are quantized too; norms and biases are negligible.
 */
const BITS_PER_WEIGHT: Record<Quantization, number> = { q4f16_1: 4.5, q4f32_1: 5 };

/** tokenizer.json (~7 MB for Qwen), mlc-chat-config.json and the model library (~3–6 MB). */
const DOWNLOAD_OVERHEAD_MB = 12;

/** Download size estimate in MB (10^6 bytes), rounded to 10 MB. Labelled as an estimate in the UI. */
export function estimateDownloadMB(paramsBillions: number, quantization: Quantization): number {
  const weightsMB = (paramsBillions * 1e9 * BITS_PER_WEIGHT[quantization]) / 8 / 1e6;
  return Math.round((weightsMB + DOWNLOAD_OVERHEAD_MB) / 10) * 10;
}

const ID_PATTERN = /^Qwen(2\.5-Coder|2\.5|3)-([\d.]+B)(?:-Instruct)?-(q4f16_1|q4f32_1)-MLC$/;

export interface ParsedModelId {
  family: QwenFamily;
  params: string;
  quantization: Quantization;
}

export function parseQwenModelId(id: string): ParsedModelId | undefined {
  const m = ID_PATTERN.exec(id);
  if (!m) return undefined;
  const family: QwenFamily = m[1] === "2.5-Coder" ? "qwen2.5-coder" : m[1] === "2.5" ? "qwen2.5" : "qwen3";
  return { family, params: m[2]!, quantization: m[3] as Quantization };
}

const FAMILY_LABEL: Record<QwenFamily, string> = {
  "qwen2.5": "Qwen2.5",
  "qwen2.5-coder": "Qwen2.5-Coder",
  qwen3: "Qwen3",
};

export function twinIdOf(id: string): string {
  return id.includes("q4f16_1") ? id.replace("q4f16_1", "q4f32_1") : id.replace("q4f32_1", "q4f16_1");
}

/** Builds catalog entries; throws when a record lacks architecture facts (caught by unit tests). */
export function buildCatalog(records: readonly WebLLMModelRecord[]): CatalogEntry[] {
  const ids = new Set(records.map((r) => r.model_id));
  return records.map((record) => {
    const parsed = parseQwenModelId(record.model_id);
    if (!parsed) throw new Error(`catalog: cannot parse the model id ${record.model_id}`);
    const arch = architectureFor(parsed.family, parsed.params);
    if (!arch) throw new Error(`catalog: no architecture facts for ${record.model_id}`);
    const twin = twinIdOf(record.model_id);
    const f16 = parsed.quantization === "q4f16_1";
    const { paramsBillions, ...architecture } = arch;
    return {
      id: record.model_id,
      label: `${FAMILY_LABEL[parsed.family]} ${parsed.params} (${f16 ? "q4f16" : "q4f32"})`,
      record,
      family: parsed.family,
      params: parsed.params,
      paramsBillions,
      quantization: parsed.quantization,
      f16,
      vramMB: record.vram_required_MB,
      maxContextWindow: architecture.maxContextWindow,
      architecture,
      lowResource: record.low_resource_required === true,
      downloadMBEstimate: estimateDownloadMB(paramsBillions, parsed.quantization),
      twinId: ids.has(twin) ? twin : undefined,
      supportsThinkingToggle: parsed.family === "qwen3",
      custom: false,
    };
  });
}

export const CATALOG: readonly CatalogEntry[] = buildCatalog(PREBUILT_QWEN_RECORDS);

export function findCatalogEntry(id: string, catalog: readonly CatalogEntry[] = CATALOG): CatalogEntry | undefined {
  return catalog.find((e) => e.id === id);
}
