// The command-line half of a script that writes a generated file (python-vocabulary.ts,
// python-formats.ts): run directly, it prints what it would write, or writes it with --write.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Does the script's work when it is the one Node was started with (not when a test imports it). */
export function generateWhenRun(scriptUrl: string, file: string, render: () => string): void {
  if (!process.argv[1] || fileURLToPath(scriptUrl) !== process.argv[1]) return;
  if (process.argv.includes("--write")) {
    writeFileSync(file, render());
    console.log(`wrote ${file}`);
  } else {
    process.stdout.write(render());
  }
}
