/** See read-whole.mjs. */
export function readWhole(fd: number, size: number): Promise<Uint8Array>;
