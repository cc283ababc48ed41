import type { ChildProcess } from "node:child_process";

/** See python-sandbox.mjs. */
export interface SandboxLaunch {
  reads: string[];
  outer: boolean;
}
export interface SandboxProcess {
  child: ChildProcess;
  onMessage(handler: (message: unknown) => void): void;
  stderrTail(): string;
  hold(on: boolean): void;
}
export declare class SandboxUnavailableError extends Error {}
export function sandboxLaunch(options?: { documents?: string[]; cacheDir?: string | null; walls?: { outer?: boolean } }): SandboxLaunch;
export function mayRead(launch: SandboxLaunch, path: string): boolean;
export function sameLaunch(a: SandboxLaunch, b: SandboxLaunch): boolean;
export function spawnSandbox(launch: SandboxLaunch): Promise<SandboxProcess>;
export function prestartSandbox(launch: SandboxLaunch | null): void;
export function takePrestartedSandbox(launch: SandboxLaunch): Promise<SandboxProcess | null>;
export function endSandboxes(waitMs?: number): Promise<void>;
