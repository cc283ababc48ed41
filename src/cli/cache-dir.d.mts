export declare const CACHE_SUBDIR = "recursive-reader";
export declare const CACHE_ENV = "RLM_CACHE_DIR";

export type CacheDirChoice =
  { dir: string; from: "--cache-dir" | typeof CACHE_ENV | "the user cache directory" } | { dir: null; why: string };

export interface CacheDirInputs {
  cacheDir?: string | undefined;
  noCache?: boolean | undefined;
  env: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

export declare function resolveCacheDir(inputs: CacheDirInputs): CacheDirChoice;
export declare function userCacheDir(env: Record<string, string | undefined>, platform: NodeJS.Platform, home: string): string;
