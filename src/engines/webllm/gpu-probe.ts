// Finds the WebGPU adapter and reads what matters for choosing a model, without creating a
// device or loading anything. Runs in the model worker (WorkerNavigator.gpu) and also works on
// the main thread. TypeScript 5.9's DOM library has no WebGPU types, hence the small shapes here.
import type { GpuLimits, GpuProbe } from "./types.ts";

interface AdapterInfoLike {
  vendor?: string;
  architecture?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

interface AdapterLike {
  features: { has(feature: string): boolean };
  limits: Partial<Record<keyof GpuLimits, number>>;
  info?: AdapterInfoLike;
  isFallbackAdapter?: boolean;
}

export interface NavigatorWithGpu {
  gpu?: { requestAdapter(options?: { powerPreference?: string }): Promise<AdapterLike | null> };
  deviceMemory?: number;
}

function readLimit(adapter: AdapterLike, key: keyof GpuLimits): number {
  const v = adapter.limits[key];
  return typeof v === "number" ? v : 0;
}

export async function probeGpu(nav: NavigatorWithGpu = globalThis.navigator as NavigatorWithGpu): Promise<GpuProbe> {
  const deviceMemoryGB = typeof nav?.deviceMemory === "number" ? nav.deviceMemory : undefined;
  if (!nav?.gpu) {
    return {
      available: false,
      reason: "no-api",
      detail: "navigator.gpu is missing (no WebGPU in this browser, or the page is not a secure context)",
      deviceMemoryGB,
    };
  }
  let adapter: AdapterLike | null;
  try {
    // The same preference WebLLM uses when it creates its device.
    adapter = await nav.gpu.requestAdapter({ powerPreference: "high-performance" });
  } catch (err) {
    return { available: false, reason: "error", detail: err instanceof Error ? err.message : String(err), deviceMemoryGB };
  }
  if (!adapter) {
    return {
      available: false,
      reason: "no-adapter",
      detail: "requestAdapter() found no GPU (blocklisted GPU, missing driver, or WebGPU disabled)",
      deviceMemoryGB,
    };
  }
  const info = adapter.info ?? {};
  return {
    available: true,
    vendor: info.vendor ?? "",
    architecture: info.architecture ?? "",
    description: info.description ?? "",
    isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    shaderF16: adapter.features.has("shader-f16"),
    limits: {
      maxBufferSize: readLimit(adapter, "maxBufferSize"),
      maxStorageBufferBindingSize: readLimit(adapter, "maxStorageBufferBindingSize"),
      maxComputeWorkgroupStorageSize: readLimit(adapter, "maxComputeWorkgroupStorageSize"),
      maxStorageBuffersPerShaderStage: readLimit(adapter, "maxStorageBuffersPerShaderStage"),
      maxComputeInvocationsPerWorkgroup: readLimit(adapter, "maxComputeInvocationsPerWorkgroup"),
    },
    deviceMemoryGB,
  };
}
