// Where `rlm` keeps its start-up cache, on every platform, and what moves or disables it.
import { describe, expect, it } from "vitest";
import { resolveCacheDir } from "../../src/cli/cache-dir.mjs";

describe("the CLI cache directory", () => {
  const linux = { platform: "linux" as const, home: "/home/ada" };

  it("follows the platform's convention by default", () => {
    expect(resolveCacheDir({ env: {}, ...linux })).toEqual({ dir: "/home/ada/.cache/recursive-reader", from: "the user cache directory" });
    expect(resolveCacheDir({ env: { XDG_CACHE_HOME: "/var/cache/ada" }, ...linux }).dir).toBe("/var/cache/ada/recursive-reader");
    // A relative XDG_CACHE_HOME is invalid per the spec and ignored.
    expect(resolveCacheDir({ env: { XDG_CACHE_HOME: "cache" }, ...linux }).dir).toBe("/home/ada/.cache/recursive-reader");
    expect(resolveCacheDir({ env: {}, platform: "darwin", home: "/Users/ada" }).dir).toBe("/Users/ada/Library/Caches/recursive-reader");
    expect(
      resolveCacheDir({ env: { LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, platform: "win32", home: "C:\\Users\\ada" }).dir,
    ).toBe("C:\\Users\\ada\\AppData\\Local\\recursive-reader");
    expect(resolveCacheDir({ env: {}, platform: "win32", home: "C:\\Users\\ada" }).dir).toBe(
      "C:\\Users\\ada\\AppData\\Local\\recursive-reader",
    );
  });

  it("--no-cache beats --cache-dir, which beats RLM_CACHE_DIR, which beats the default", () => {
    const env = { RLM_CACHE_DIR: "/tmp/from-env" };
    expect(resolveCacheDir({ noCache: true, cacheDir: "/tmp/opt", env, ...linux })).toEqual({ dir: null, why: "--no-cache" });
    expect(resolveCacheDir({ cacheDir: "/tmp/opt", env, ...linux })).toEqual({ dir: "/tmp/opt", from: "--cache-dir" });
    expect(resolveCacheDir({ env, ...linux })).toEqual({ dir: "/tmp/from-env", from: "RLM_CACHE_DIR" });
    expect(resolveCacheDir({ env: { RLM_CACHE_DIR: "OFF" }, ...linux })).toEqual({ dir: null, why: "RLM_CACHE_DIR=off" });
    expect(resolveCacheDir({ env: { RLM_CACHE_DIR: "  " }, ...linux }).dir).toBe("/home/ada/.cache/recursive-reader");
  });
});
