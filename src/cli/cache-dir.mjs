// Where `rlm` keeps its start-up cache (the Python memory snapshot). Pure, so every platform's
// rule is tested on any platform. Plain JavaScript: bin/rlm.mjs needs it to start Python's
// sandbox process (which may read this directory) before any TypeScript loads.
import { homedir } from "node:os";
import { isAbsolute, posix, win32 } from "node:path";

export const CACHE_SUBDIR = "recursive-reader";
export const CACHE_ENV = "RLM_CACHE_DIR";

/** --no-cache, then --cache-dir, then $RLM_CACHE_DIR ("off" turns it off), then the platform's cache. */
export function resolveCacheDir(inputs) {
  if (inputs.noCache) return { dir: null, why: "--no-cache" };
  if (inputs.cacheDir) return { dir: inputs.cacheDir, from: "--cache-dir" };
  const fromEnv = inputs.env[CACHE_ENV]?.trim();
  if (fromEnv && fromEnv.toLowerCase() === "off") return { dir: null, why: `${CACHE_ENV}=off` };
  if (fromEnv) return { dir: fromEnv, from: CACHE_ENV };
  return { dir: userCacheDir(inputs.env, inputs.platform ?? process.platform, inputs.home ?? homedir()), from: "the user cache directory" };
}

/** The platform's per-user cache directory for this tool. */
export function userCacheDir(env, platform, home) {
  if (platform === "win32") {
    const local = env.LOCALAPPDATA && win32.isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : win32.join(home, "AppData", "Local");
    return win32.join(local, CACHE_SUBDIR);
  }
  if (platform === "darwin") return posix.join(home, "Library", "Caches", CACHE_SUBDIR);
  // XDG: a relative $XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : posix.join(home, ".cache");
  return posix.join(xdg, CACHE_SUBDIR);
}
