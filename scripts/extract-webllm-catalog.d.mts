// Types for scripts/extract-webllm-catalog.mjs so the staleness test can import it.
export declare const QWEN_MODEL_ID_PATTERN: RegExp;
export declare const GENERATED_PATH: string;
export declare function selectQwenRecords(appConfig: { model_list: ReadonlyArray<object> }): Array<Record<string, unknown>>;
export declare function renderCatalogModule(
  records: Array<Record<string, unknown>>,
  meta: { version: string; modelVersion: string },
): string;
export declare function renderFromInstalledPackage(): Promise<string>;
