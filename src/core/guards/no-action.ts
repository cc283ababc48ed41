// M01: turns with no code and no usable final. One gets a format reminder; two in a row mean
// the model cannot drive this task, and the loop should fall back instead of spending the
// rest of its turns on reminders.

export interface NoActionVerdict {
  consecutive: number;
  fallback: boolean;
}

export class NoActionCounter {
  private consecutive = 0;

  constructor(private readonly limit = 2) {}

  /**
   * `acted`: the turn ran code or gave a final that was accepted. A reply classified
   * "neither", a refused final, or only refused (shell) blocks did not act.
   */
  note(acted: boolean): NoActionVerdict {
    this.consecutive = acted ? 0 : this.consecutive + 1;
    return { consecutive: this.consecutive, fallback: this.consecutive >= this.limit };
  }
}
