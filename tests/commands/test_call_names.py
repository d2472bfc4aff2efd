"""An answer is often several files: the one whose words match the question and the one it hands
the work to. The declaration of what the best matching source file calls, with a word of the
question in its name, joins the answers though its body says none of the question's words
(issue 34: leveldb's `DBImpl::Write` calls `log_->AddRecord`, declared in `db/log_writer.cc`)."""

from __future__ import annotations

from monodex.indexer.read import callnames

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--explain")
QUESTION = "how is a journal entry persisted as a record when the store is flushed?"

# the question's words: the caller
FLUSH = """import { appendRecord } from '../frames/append'
import { lockJournal } from './lock'

// Flushing the store persists every pending journal entry before the store is reused.
export function flushStore(store: Store, journal: Journal): void {
  lockJournal(journal)
  for (const entry of store.pendingEntries()) {
    appendRecord(journal.file, entry.bytes)
  }
  store.clearPending()
}
"""
# says none of the question's words in its body: only its name ties it to the caller
APPEND = """export function appendRecord(file: FileHandle, bytes: Uint8Array): number {
  const header = new Uint8Array(7)
  header.set(crc32(bytes), 0)
  header[6] = bytes.length & 0xff
  file.write(header)
  return file.write(bytes) + header.length
}
"""
# some of the question's words, in code that is not the answer
NOTE = """// Note {n}: a store keeps the entry of each widget until the next render.
export function note{n}(store: Store, entry: Entry): string {{
  return `<li>${{entry.title}} ({n}) ${{store.size}}</li>`
}}
"""


def _repo() -> dict[str, str]:
    files = {
        "package.json": '{"name": "acme"}\n',
        "src/store/flush.ts": FLUSH,
        "src/store/lock.ts": "export function lockJournal(journal: Journal): void { journal.locked = true }\n",
        "src/frames/append.ts": APPEND,
        "test/flush.test.ts": "import { flushStore } from '../src/store/flush'\nflushStore(makeStore(), journal)\n",
    }
    files |= {f"src/notes/note{n}.ts": NOTE.format(n=n) for n in range(8)}
    return files


def test_the_declaration_of_what_the_best_source_file_calls_gains_its_share(
    crawl_files, lifted, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_repo())
    caller, moved = lifted(QUESTION, "src/store/flush.ts", "src/frames/append.ts")
    assert moved["call-names"]["why"] == "src/store/flush.ts calls appendRecord"
    assert moved["call-names"]["change"] == round(callnames.WEIGHT * caller, 6) > 0
    monkeypatch.setattr(callnames, "WEIGHT", 0.0)
    _, moved = lifted(QUESTION, "src/store/flush.ts", "src/frames/append.ts")
    assert "call-names" not in moved


def test_a_change_request_or_one_name_follows_no_call(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    """A change request says its files' words already; a name is its own declaration."""
    crawl_files(_repo())
    for text in ("Fix journal entry persisted as a record when the store is flushed", "flushStore"):
        code, found, err = run_json(*SEARCH, "--text", text, "--limit", "20")
        assert code == 0, err
        assert all(m["signal"] != "call-names" for r in found["results"] for m in r["explain"]["signals"])


def test_the_names_called_are_those_sharing_a_word_with_the_question_most_first() -> None:
    words = callnames.question_words("when are log records flushed to the journal file?")
    assert {"records", "record", "flushed", "flush", "journal"} <= words
    body = "if (ok) { Unlock(); log_->AddRecord(x); FlushJournalFile(f); while (x) {} sizeof(y) }"
    assert callnames.called(body, words) == ["FlushJournalFile", "AddRecord"]
    assert callnames.called("for (;;) { print(x) }", words) == []
