// Picking a model for the GPU we found. Pure functions over a GpuProbe, so they are unit-tested
// without a browser.
//
// WebGPU does not report how much memory a GPU has. We sort adapters into classes by what it
// does report (fallback flag, architecture, vendor, buffer limits, navigator.deviceMemory) and
// assume a memory budget per class; the user can state their real VRAM instead.
import { CATALOG, findCatalogEntry } from "./catalog.ts";
import { defaultWindowFor, formatMB, windowOptions, type GpuBudget, type WindowOption } from "./memory.ts";
import type { CatalogEntry, GpuProbe, ModelSpec } from "./types.ts";

export type GpuTier = "none" | "software" | "low" | "mid" | "high";

export interface GpuAssessment {
  tier: GpuTier;
  /** Assumed GPU memory available to the model (MB). */
  budgetMB: number;
  maxStorageBufferBindingSize: number;
  /** User-visible sentences explaining the class. */
  reasons: string[];
}

const GIB = 1024 ** 3;

/** Assumed memory per class: a 4 GB integrated share, a 2 GB weak GPU, a 6–8 GB discrete GPU. */
const TIER_BUDGET_MB: Record<GpuTier, number> = { none: 0, software: 2048, low: 1536, mid: 3072, high: 6144 };

/** The model id (q4f16_1 form) recommended per class. */
export const TIER_DEFAULT_MODEL: Record<Exclude<GpuTier, "none">, string> = {
  software: "Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
  low: "Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
  mid: "Qwen2.5-1.5B-Instruct-q4f16_1-MLC",
  high: "Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC",
};

const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render/i;
/** Intel's discrete Arc GPUs report xe-hpg / xe-hpc; every other Intel adapter is integrated. */
const INTEL_DISCRETE = /^xe-hp/i;
const MOBILE_VENDORS = /^(arm|qualcomm|imagination|img-tec|mali|adreno|powervr|samsung)/i;

export interface AssessOptions {
  /** GPU memory the user says they have (GB); replaces the class guess. */
  userVramGB?: number;
}

export function assessGpu(probe: GpuProbe, options: AssessOptions = {}): GpuAssessment {
  if (!probe.available) {
    return { tier: "none", budgetMB: 0, maxStorageBufferBindingSize: 0, reasons: ["No WebGPU adapter was found."] };
  }
  const { limits } = probe;
  const reasons: string[] = [];
  const name = `${probe.vendor} ${probe.architecture} ${probe.description}`.trim();
  let tier: GpuTier;
  if (probe.isFallbackAdapter || SOFTWARE_ADAPTER.test(name)) {
    tier = "software";
    reasons.push(`This is a software WebGPU adapter (${name || "fallback"}): the model runs on the CPU and is very slow.`);
  } else if (limits.maxStorageBufferBindingSize < GIB || limits.maxBufferSize < GIB) {
    tier = "low";
    reasons.push(
      `This GPU allows buffers of at most ${formatMB(Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize) / 1024 ** 2)}; ` +
        "WebLLM's Qwen builds expect 1 GB, so only the smallest model is likely to load.",
    );
  } else if (
    (probe.vendor.toLowerCase() === "intel" && !INTEL_DISCRETE.test(probe.architecture)) ||
    MOBILE_VENDORS.test(probe.vendor) ||
    (probe.deviceMemoryGB !== undefined && probe.deviceMemoryGB <= 4) ||
    limits.maxBufferSize < 2 * GIB
  ) {
    tier = "mid";
    reasons.push(`This looks like an integrated or low-memory GPU (${name || "unknown adapter"}).`);
  } else {
    tier = "high";
    reasons.push(`This looks like a capable GPU (${name || "unknown adapter"}).`);
  }
  let budgetMB = TIER_BUDGET_MB[tier];
  if (options.userVramGB !== undefined && options.userVramGB > 0) {
    // Leave room for the browser, the page and other tabs.
    budgetMB = Math.round(options.userVramGB * 1024 * 0.85);
    reasons.push(`Using the ${options.userVramGB} GB of GPU memory you entered (about ${formatMB(budgetMB)} for the model).`);
  } else {
    reasons.push(`Browsers do not report GPU memory; assuming about ${formatMB(budgetMB)} is free for the model.`);
  }
  return { tier, budgetMB, maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize, reasons };
}

export interface VariantChoice<T extends ModelSpec = ModelSpec> {
  spec: T;
  /** Set when the choice differs from what was asked, or may fail; show it to the user. */
  note: string | undefined;
}

/**
 * Swaps a q4f16_1 model for its q4f32_1 twin when the adapter lacks `shader-f16`. WebLLM does not
 * check this for Qwen records (none declares required_features), so loading the f16 build there
 * fails later with an obscure shader error instead.
 */
export function chooseVariant<T extends ModelSpec>(
  spec: T,
  probe: GpuProbe,
  catalog: readonly CatalogEntry[] = CATALOG,
): VariantChoice<T | CatalogEntry> {
  if (!spec.f16 || !probe.available || probe.shaderF16) return { spec, note: undefined };
  const twinId = "twinId" in spec && typeof spec.twinId === "string" ? spec.twinId : undefined;
  const twin = twinId ? findCatalogEntry(twinId, catalog) : undefined;
  if (!twin) {
    return {
      spec,
      note: `This GPU does not support 16-bit floats in shaders (shader-f16), and ${spec.label} has no 32-bit build; loading it will probably fail.`,
    };
  }
  const extra = twin.vramMB !== undefined && spec.vramMB !== undefined ? Math.max(0, twin.vramMB - spec.vramMB) : undefined;
  return {
    spec: twin,
    note:
      `This GPU does not support 16-bit floats in shaders (shader-f16), so the 32-bit build ${twin.id} is used ` +
      `instead of ${spec.id}` +
      (extra !== undefined ? `; it needs about ${formatMB(extra)} more GPU memory.` : "."),
  };
}

export interface Recommendation {
  entry: CatalogEntry;
  assessment: GpuAssessment;
  contextWindow: number;
  windows: WindowOption[];
  /** User-visible notes: the GPU class and, when it happened, the f16 → f32 swap. */
  notes: string[];
}

export function gpuBudget(assessment: GpuAssessment): GpuBudget {
  return { budgetMB: assessment.budgetMB, maxStorageBufferBindingSize: assessment.maxStorageBufferBindingSize };
}

/** The default model and window for this GPU, or undefined when there is no WebGPU adapter. */
export function recommendModel(
  probe: GpuProbe,
  options: AssessOptions & { catalog?: readonly CatalogEntry[] } = {},
): Recommendation | undefined {
  const catalog = options.catalog ?? CATALOG;
  const assessment = assessGpu(probe, options);
  if (assessment.tier === "none") return undefined;
  let base = findCatalogEntry(TIER_DEFAULT_MODEL[assessment.tier], catalog);
  if (!base) throw new Error(`recommendModel: ${TIER_DEFAULT_MODEL[assessment.tier]} is not in the catalog`);
  // With a stated VRAM figure, step down to the largest default that fits at 4K.
  if (options.userVramGB !== undefined) {
    const order = [TIER_DEFAULT_MODEL.high, TIER_DEFAULT_MODEL.mid, TIER_DEFAULT_MODEL.low];
    for (const id of order) {
      const candidate = findCatalogEntry(id, catalog);
      const variant = candidate ? chooseVariant(candidate, probe, catalog).spec : undefined;
      if (variant?.vramMB !== undefined && variant.vramMB <= assessment.budgetMB) {
        base = candidate!;
        break;
      }
    }
  }
  const { spec: entry, note } = chooseVariant(base, probe, catalog);
  const windows = windowOptions(entry, gpuBudget(assessment));
  return {
    entry,
    assessment,
    contextWindow: defaultWindowFor(entry),
    windows,
    notes: [...assessment.reasons, ...(note ? [note] : [])],
  };
}
