"""Breadcrumbs in text output (issue 35): stored percent-encoded, as the original monodex stores
them, and decoded for people by one function in every text renderer, all but `:`."""

from __future__ import annotations

import json

from monodex.main import main
from monodex.observe import output

HANDLE_RS = """use std::sync::mpsc::Sender;

pub struct Handle {
    events: Sender<String>,
}

impl Handle {
    /// Sends one event to the loop that owns this handle; fails when the loop has stopped.
    pub fn send_event(&self, name: &str, payload: &str) -> Result<(), String> {
        let event = format!("{name}:{payload}");
        self.events
            .send(event)
            .map_err(|error| format!("the event loop has stopped: {error}"))?;
        println!("sent event {name} with a payload of {} bytes", payload.len());
        Ok(())
    }

    /// Sends the same event to the loop again and again until it is accepted or attempts run out.
    pub fn send_event_with_retries(&self, name: &str, payload: &str, attempts: u32) -> bool {
        for attempt in 0..attempts {
            if self.send_event(name, payload).is_ok() {
                return true;
            }
            eprintln!("attempt {attempt} of {attempts} to send {name} failed, trying again");
        }
        false
    }
}
"""


def test_crumb_decodes_everything_but_the_separator_and_what_does_not_print() -> None:
    assert (
        output.crumb("%40acme/net:lib.rs:impl%20Handle.send_event")
        == "@acme/net:lib.rs:impl Handle.send_event"
    )
    assert (
        output.crumb("c:Cargo.toml:target.'cfg(os%20%3D%20\"x\")'") == "c:Cargo.toml:target.'cfg(os = \"x\")'"
    )
    assert (
        output.crumb("p:a.md:a%3Ab%25%2B%23%E3%80%80x") == "p:a.md:a%3Ab%+#%E3%80%80x"
    )  # U+3000 does not print
    assert output.crumb("p:a.ts:x%0Ay%09z") == "p:a.ts:x%0Ay%09z"  # a newline or tab stays encoded
    assert output.crumb("p:a.ts:%FF%20") == "p:a.ts:%FF%20"  # not UTF-8: shown as stored
    assert output.crumb(None) == ""


def test_search_chunk_view_diff_and_containing_texts_decode_the_breadcrumb(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(
        {"crates/hx/Cargo.toml": '[package]\nname = "hx"\n', "crates/hx/src/handle.rs": HANDLE_RS}
    )
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    repo.git("checkout", "-q", "-b", "feature/x")
    repo.write("crates/hx/src/handle.rs", HANDLE_RS.replace("trying again", "retrying"))
    repo.commit("feature/x: say retrying")
    assert (
        run_json("crawl", "--catalog", "acme", "--label", "feature/x", "--commit", "HEAD", "--json")[0] == 0
    )
    where = ["--catalog", "acme", "--label", "main"]
    question = ["send the event again until it is accepted", "--limit", "5"]
    wanted = "handle.rs:impl Handle.send_event_with_retries"

    code, found, err = run_json("search", *question, *where, "--json")
    assert code == 0, err
    hit = next(r for r in found["results"] if r["symbol_name"] == "impl Handle.send_event_with_retries")
    assert hit["breadcrumb"] == "hx:handle.rs:impl%20Handle.send_event_with_retries"  # --json: as stored
    texts = {
        "search": run_json("search", *question, *where)[1],
        "chunk": run_json("chunk", str(repo.path / "crates/hx/src/handle.rs"))[1],
        "view": run_json("view", *where, "--id", hit["file_id"])[1],
        "diff": run_json("diff", "--catalog", "acme", "--from", "main", "--to", "feature/x")[1],
        "containing": run_json("labels", "--containing", f"{hit['file_id']}:{hit['chunk_ordinal']}", *where)[
            1
        ],
    }
    for name, text in texts.items():
        assert wanted in text and "%20" not in text, f"{name}:\n{text}"
    code, out, _ = run_json("diff", "--catalog", "acme", "--from", "main", "--to", "feature/x", "--json")
    assert "hx:handle.rs:impl%20Handle.send_event_with_retries" in json.dumps(out)  # as stored
