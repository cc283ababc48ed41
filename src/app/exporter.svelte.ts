// What a person can take away from the open session: an answer as Markdown, trajectories as the
// official visualizer's JSONL, answered runs as a fine-tuning dataset.
import { fineTuneJsonl, runMetadata, trajectoryJsonl } from "../core/trajectory.ts";
import type { SessionView } from "./controller.svelte.ts";
import type { EngineManager } from "./engines.svelte.ts";
import { answerMarkdown, safeFileName } from "./exports.ts";
import type { Notices } from "./notices.svelte.ts";
import type { Exchange } from "./run-view.ts";
import { toRlmConfig, type Settings } from "./settings.ts";

type Download = (name: string, content: string, type: string) => void;

/** Plain data for export: Svelte's reactive proxies must not reach JSON.stringify. */
const plain = <T>(value: T): T => structuredClone($state.snapshot(value) as T);

export class Exporter {
  constructor(
    private readonly view: SessionView,
    private readonly engines: EngineManager,
    private readonly settings: () => Settings,
    private readonly notices: Notices,
    private readonly download: Download,
  ) {}

  answer(exchange: Exchange): void {
    const docs = this.view.record?.documents.map((d) => d.path) ?? [];
    this.download(safeFileName(exchange.question, "md"), answerMarkdown(plain(exchange), docs), "text/markdown");
  }

  trajectory(exchange?: Exchange): void {
    const list = exchange ? [exchange] : this.view.exchanges.filter((e) => e.iterations.length);
    const name = safeFileName(exchange?.question ?? this.view.record?.title ?? "session", "jsonl");
    const { root, sub } = this.engines.describe();
    const metadata = runMetadata(root, sub, toRlmConfig(this.settings()));
    this.download(name, trajectoryJsonl(metadata, plain(list)), "application/jsonl");
  }

  dataset(): void {
    const content = fineTuneJsonl(plain(this.view.exchanges));
    if (!content) {
      this.notices.notify("info", "There is no answered question in this session to export yet.");
      return;
    }
    this.download(safeFileName(`${this.view.record?.title ?? "session"}-sft`, "jsonl"), content, "application/jsonl");
  }
}
