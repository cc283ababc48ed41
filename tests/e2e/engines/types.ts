// One way to drive three browser engines in the end-to-end tests. A test body is written once
// against EnginePage; chromium.ts (playwright-core), firefox.ts (puppeteer-core over WebDriver
// BiDi) and webkit.ts (WebKitWebDriver over classic WebDriver) implement it.

export type EngineName = "chromium" | "firefox" | "webkit";

/** An element on the page: CSS, optionally narrowed by its text, the first match unless `last`. */
export interface Target {
  css: string;
  /** Substring of the element's text (whitespace-normalised); `exact` compares the whole text. */
  text?: string;
  exact?: boolean;
  last?: boolean;
}

export interface FileSpec {
  name: string;
  mimeType: string;
  buffer: Uint8Array;
}

export interface PageOptions {
  viewport?: { width: number; height: number };
}

export interface EnginePage {
  readonly engine: EngineName;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Runs `fn(arg)` in the page. `fn` must be self-contained: it is sent as source text. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  click(target: Target): Promise<void>;
  /** Replaces a text field's value the way typing does (input events fire). */
  fill(target: Target, text: string): Promise<void>;
  setInputFiles(target: Target, files: FileSpec[]): Promise<void>;
  /** Network emulation where the engine's automation has it; false where it has none (WebKitGTK). */
  setOffline(offline: boolean): Promise<boolean>;
  screenshot(path: string): Promise<void>;
  /** Uncaught errors and console errors seen so far (WebKit: only after the page's scripts began). */
  errors(): Promise<string[]>;
  close(): Promise<void>;
}

export interface EngineBrowser {
  readonly engine: EngineName;
  /** What the engine is, for reports: name and version. */
  readonly version: string;
  /** A fresh page in a fresh profile (no storage, no service worker). */
  newPage(options?: PageOptions): Promise<EnginePage>;
  close(): Promise<void>;
}
