// Types for help.mjs (plain JavaScript so that `rlm --help` needs no TypeScript loader).
export declare const HELP: string;
export declare function quickHelp(argv: readonly string[]): string | null;
