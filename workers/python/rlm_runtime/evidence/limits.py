# What the evidence recorder may spend. Every cost is bounded, because `context` may be a 500 MB str.

EV_BLOCK = 16_384              # characters between line-count checkpoints
EV_PROBE = 48                  # characters of a fragment looked up at once
EV_MIN_FRAGMENT = 32           # shorter pieces of output (numbers, labels) are not looked up
EV_WINDOW = 32_768             # how far from where the last fragment ended a probe is looked for first
EV_ANCHOR_WINDOW = 8_192       # ... and how far around a recent regex match or citation
EV_TRIES_PER_SEGMENT = 4       # failed probes before a line of output is given up
EV_PROBES_PER_CELL = 256
EV_FULL_SCAN_CHARS = 64_000_000  # characters whole-document searches may scan per cell (after the first)
EV_MATCHES_PER_CALL = 32       # regex matches recorded per call (the call itself is not limited)
EV_RAW_PER_CELL = 1024
EV_RANGES_PER_CELL = 256
EV_RANGES_PER_PROMPT = 64
EV_ANCHORS = 32                # recent match/cite spans used to align output with a document
EV_NEAR = 8                    # recent match/citation positions searched around first
EV_SLICES = 4096               # slices of context[...] waiting to be printed or prompted, in order
EV_SLICE_TRIES = 4             # queued slices looked for in a text before it is given up on
EV_MIN_ANCHOR = 12             # shorter matches are too common to align anything with
EV_QUESTION_RANGES = 2048
EV_MISSES_KEPT = 512
EV_ANSWER_SCAN_CHARS = 8_000_000
EV_ANSWER_HITS = 8
EV_LITERALS = 64               # string literals of a question's code kept (see _hits_in_named_documents)
EV_NAMED_SCAN_CHARS = 4_000_000
