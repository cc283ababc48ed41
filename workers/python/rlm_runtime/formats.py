# Generated from src/ingest/formats (pythonFormatFacts) by scripts/python-formats.ts; do not edit.
# Change the registry and run: node --import tsx scripts/python-formats.ts --write

# How the text of each kind of document marks its places beyond lines, by the kind the host
# passes with the document. "page": a page starts with the line before + n + after (n from 1).
# "paragraph": paragraphs are separated by separator. A kind not listed is cited by lines only.
PLACES = {
    "pdf": {"unit": "page", "before": "--- page ", "after": " ---"},
    "docx": {"unit": "paragraph", "separator": "\n\n"},
}
