/** See esbuild-cache.mjs: `entry` bundled as plain JavaScript in the cache, or null (use tsx). */
export function cachedBundle(entry: URL, name: string): Promise<URL | null>;
