// The runtime package's files as the bundler gives them to a browser worker (Vite for the page's
// worker, esbuild for the sandboxed frame's: both read `?raw` imports). One import per module of
// workers/python/rlm_runtime/: tests/unit/runtime-package.test.ts fails when a file on disk is missing here.
import initPy from "../python/rlm_runtime/__init__.py?raw";
import cellsPy from "../python/rlm_runtime/cells.py?raw";
import documentsPy from "../python/rlm_runtime/documents.py?raw";
import evidenceInitPy from "../python/rlm_runtime/evidence/__init__.py?raw";
import evidenceAlignPy from "../python/rlm_runtime/evidence/align.py?raw";
import evidenceAnswersPy from "../python/rlm_runtime/evidence/answers.py?raw";
import evidenceLimitsPy from "../python/rlm_runtime/evidence/limits.py?raw";
import evidencePassagesPy from "../python/rlm_runtime/evidence/passages.py?raw";
import evidencePositionsPy from "../python/rlm_runtime/evidence/positions.py?raw";
import evidenceRecorderPy from "../python/rlm_runtime/evidence/recorder.py?raw";
import evidenceRegexPy from "../python/rlm_runtime/evidence/regex.py?raw";
import evidenceSlicesPy from "../python/rlm_runtime/evidence/slices.py?raw";
import formatsPy from "../python/rlm_runtime/formats.py?raw";
import helpersPy from "../python/rlm_runtime/helpers.py?raw";
import hostPy from "../python/rlm_runtime/host.py?raw";
import namespacePy from "../python/rlm_runtime/namespace.py?raw";
import patchesPy from "../python/rlm_runtime/patches.py?raw";
import probesPy from "../python/rlm_runtime/probes.py?raw";
import runtimePy from "../python/rlm_runtime/runtime.py?raw";
import vocabularyPy from "../python/rlm_runtime/vocabulary.py?raw";
import { packageFiles, type RuntimeFile } from "../shared/runtime-package.ts";

export const RUNTIME_FILES: readonly RuntimeFile[] = packageFiles([
  { path: "rlm_runtime/__init__.py", source: initPy },
  { path: "rlm_runtime/cells.py", source: cellsPy },
  { path: "rlm_runtime/documents.py", source: documentsPy },
  { path: "rlm_runtime/evidence/__init__.py", source: evidenceInitPy },
  { path: "rlm_runtime/evidence/align.py", source: evidenceAlignPy },
  { path: "rlm_runtime/evidence/answers.py", source: evidenceAnswersPy },
  { path: "rlm_runtime/evidence/limits.py", source: evidenceLimitsPy },
  { path: "rlm_runtime/evidence/passages.py", source: evidencePassagesPy },
  { path: "rlm_runtime/evidence/positions.py", source: evidencePositionsPy },
  { path: "rlm_runtime/evidence/recorder.py", source: evidenceRecorderPy },
  { path: "rlm_runtime/evidence/regex.py", source: evidenceRegexPy },
  { path: "rlm_runtime/evidence/slices.py", source: evidenceSlicesPy },
  { path: "rlm_runtime/formats.py", source: formatsPy },
  { path: "rlm_runtime/helpers.py", source: helpersPy },
  { path: "rlm_runtime/host.py", source: hostPy },
  { path: "rlm_runtime/namespace.py", source: namespacePy },
  { path: "rlm_runtime/patches.py", source: patchesPy },
  { path: "rlm_runtime/probes.py", source: probesPy },
  { path: "rlm_runtime/runtime.py", source: runtimePy },
  { path: "rlm_runtime/vocabulary.py", source: vocabularyPy },
]);
