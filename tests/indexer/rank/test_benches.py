"""A Rust crate's benches/ measure the code a question is about (issue 34), on a real index:
hashbrown's benches/with_capacity.rs ranked above src/ for "... a huge capacity ...", in the
words of the code it measures. Like tests, benchmarks move down unless the question asks."""

from __future__ import annotations

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--limit", "5")

MAP = """/// A map whose capacity grows as entries are added.
pub struct Table { cap: usize }

impl Table {
    /// Reserves room for at most `hint` entries, never more than a sane bound: an untrusted
    /// length hint must not allocate a huge table up front.
    pub fn reserve_bounded(&mut self, hint: usize) {
        self.cap = hint.min(4096);
    }
}
"""
BENCH = """// Preallocating a huge capacity: with_capacity against growing a map entry by entry.
use acme::Table;

fn with_capacity_huge_capacity_preallocating(b: &mut Bencher) {
    b.iter(|| { let mut t = Table { cap: 0 }; t.reserve_bounded(1 << 20); t })
}

fn huge_capacity_then_grow(b: &mut Bencher) {
    b.iter(|| { let mut t = Table { cap: 0 }; t.reserve_bounded(1 << 30); t })
}
"""


def test_a_cargo_benchmark_moves_below_the_code_it_measures(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files({"Cargo.toml": '[package]\nname = "acme"\n', "src/map.rs": MAP, "benches/with_capacity.rs": BENCH})
    text = "avoid preallocating a huge capacity"
    code, found, err = run_json(*SEARCH, "--text", text)
    assert code == 0, err
    order = [r["relative_path"] for r in found["results"]]
    assert order.index("src/map.rs") < order.index("benches/with_capacity.rs"), order
    code, found, err = run_json(*SEARCH, "--text", text, "--include-tests")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "benches/with_capacity.rs"  # it matches best
