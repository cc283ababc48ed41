import type { SandboxLaunch } from "../node/python-sandbox.mjs";

/** See prestart.mjs. */
export function launchFromArgv(argv: string[], env: Record<string, string | undefined>): SandboxLaunch | null;
