"""Realistic config files, written here: a Rush-style rush.json, a crate's Cargo.toml, a CI workflow."""

from __future__ import annotations


def rush_json(projects: int = 40) -> str:
    """JSON with comments, as Rush writes it: documented options, then a long `projects` array."""
    head = [
        "/**",
        " * This is the main configuration file for Rush.",
        " * For full documentation, please see https://rushjs.io",
        " */",
        "{",
        '  "$schema": "https://developer.microsoft.com/json-schemas/rush/v5/rush.schema.json",',
        "",
        "  /**",
        "   * (Required) This specifies the version of the Rush engine to be used in this repo.",
        "   * Rush's version is pinned so every developer and the build machines use the same one.",
        "   */",
        '  "rushVersion": "5.153.2",',
        "",
        "  /**",
        "   * The package manager and its version; exactly one of these must be specified.",
        "   */",
        '  "pnpmVersion": "9.15.9",',
        "",
        '  "nodeSupportedVersionRange": ">=18.20.3 <19.0.0 || >=20.14.0 <21.0.0 || >=22.12.0 <23.0.0",',
        '  "projectFolderMinDepth": 2,',
        '  "projectFolderMaxDepth": 3,',
        "",
        '  "gitPolicy": {',
        '    "allowedEmailRegExps": ["[^@]+@users\\\\.noreply\\\\.github\\\\.com", "[^@]+@example\\\\.com"],',
        '    "sampleEmail": "example@users.noreply.github.com",',
        '    "versionBumpCommitMessage": "Bump versions [skip ci]",',
        '    "changeLogUpdateCommitMessage": "Update changelogs [skip ci]"',
        "  },",
        "",
        '  "projects": [',
    ]
    kinds = ["libraries", "apps", "tools", "rigs"]
    entries = []
    for i in range(projects):
        kind = kinds[i % 4]
        entries.append(
            "    {\n"
            f'      "packageName": "@example/{kind[:-1]}-{i}",\n'
            f'      "projectFolder": "{kind}/{kind[:-1]}-{i}",\n'
            f'      "reviewCategory": "{kind}",\n'
            f'      "shouldPublish": {"true" if i % 3 else "false"}\n'
            "    }"
        )
    return "\n".join(head) + "\n" + ",\n".join(entries) + "\n  ]\n}\n"


CARGO_TOML = """[package]
name = "napi-build-tools"
version = "2.1.4"
edition = "2021"
description = "Build support for native Node.js addons"
license = "MIT"
repository = "https://github.com/example/napi-build-tools"

[lib]
crate-type = ["cdylib", "rlib"]

[features]
default = ["tokio_rt"]
tokio_rt = ["tokio", "napi/tokio_rt"]
serde-json = ["serde", "serde_json"]

[dependencies]
napi = { version = "2", default-features = false, features = ["napi8"] }
napi-derive = "2"
serde = { version = "1", features = ["derive"], optional = true }
serde_json = { version = "1", optional = true }
tokio = { version = "1", features = ["rt-multi-thread", "macros"], optional = true }

[dev-dependencies]
criterion = "0.5"
tempfile = "3"

[build-dependencies]
napi-build = "2"

[[bench]]
name = "parse"
harness = false

[profile.release]
lto = true
codegen-units = 1
strip = "symbols"
"""

CI_YAML = """name: CI

on:
  push:
    branches: [main]
  pull_request:
    types: [opened, synchronize]

env:
  NODE_VERSION: 22
  CARGO_TERM_COLOR: always

jobs:
  build:
    name: Build and test (${{ matrix.os }})
    runs-on: ${{ matrix.os }}
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest, windows-latest, macos-latest]
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 2
      - name: Set up Node.js
        uses: actions/setup-node@v4
        with:
          node-version: ${{ env.NODE_VERSION }}
          cache: pnpm
      - name: Install dependencies
        run: pnpm install --frozen-lockfile
      - name: Build
        run: |
          pnpm build
          cargo build --release
      - name: Test
        run: pnpm test -- --coverage

  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Clippy
        run: cargo clippy --all-targets -- -D warnings
      - name: Format
        run: |
          cargo fmt --check
          pnpm prettier --check .
"""

CONFIGS = {
    "json": ("rush.json", rush_json()),
    "toml": ("crates/tools/Cargo.toml", CARGO_TOML),
    "yaml": (".github/workflows/ci.yml", CI_YAML),
}
