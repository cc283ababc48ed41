// A whole file in as few reads as the kernel allows: one request to libuv's thread pool for a
// 30 MiB snapshot or the 9.6 MB pyodide.asm.wasm. (FileHandle.readFile reads 512 KiB pieces, each
// of which needs the thread's event loop, busy starting Pyodide meanwhile, to ask for the next;
// readFileSync holds the thread itself.) Plain JavaScript: the REPL thread's first module uses it
// before any TypeScript loads.
import { read } from "node:fs";

/** `size` bytes of the open file `fd` from its start; fewer if the file is shorter by then. */
export async function readWhole(fd, size) {
  const bytes = new Uint8Array(size);
  let filled = 0;
  while (filled < size) {
    const got = await new Promise((done, fail) => read(fd, bytes, filled, size - filled, filled, (err, n) => (err ? fail(err) : done(n))));
    if (got === 0) break;
    filled += got;
  }
  return filled === size ? bytes : bytes.subarray(0, filled);
}
