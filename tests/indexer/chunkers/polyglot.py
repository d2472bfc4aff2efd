"""Realistic sources in the languages that share monorepos with TypeScript, written here (not
copied from any repository): each has imports, a type with methods, free functions and comments."""

from __future__ import annotations

PYTHON = '''"""Resolve workspace packages from their manifests."""

from __future__ import annotations

import json
from pathlib import Path

DEFAULT_MANIFEST = "package.json"


class Workspace:
    """All packages under one root, by name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.packages: dict[str, Path] = {}

    def load(self) -> None:
        """Read every manifest below the root, skipping node_modules."""
        for manifest in sorted(self.root.rglob(DEFAULT_MANIFEST)):
            if "node_modules" in manifest.parts:
                continue
            data = json.loads(manifest.read_text(encoding="utf-8"))
            name = data.get("name")
            if isinstance(name, str) and name:
                self.packages[name] = manifest.parent
                print(f"found {name} in {manifest.parent}")

    def path_of(self, name: str) -> Path:
        try:
            return self.packages[name]
        except KeyError:
            raise LookupError(f"no package named {name!r} under {self.root}") from None

    class Cache:
        def clear(self) -> None:
            self.entries = {}
            self.hits = 0
            self.misses = 0


@dataclass_like
def resolve_all(roots: list[Path]) -> dict[str, Path]:
    """Packages of several roots; a later root wins a name clash."""
    found: dict[str, Path] = {}
    for root in roots:
        ws = Workspace(root)
        ws.load()
        found.update(ws.packages)
        print(f"{len(ws.packages)} packages under {root}")
    return found
'''

RUST = """//! Reading package manifests for the napi build.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One crate of the workspace.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub root: PathBuf,
    pub features: Vec<String>,
}

impl Package {
    /// A package rooted at `root` with no features enabled.
    pub fn new(name: &str, root: &Path) -> Self {
        Package { name: name.to_string(), root: root.to_path_buf(), features: Vec::new() }
    }

    pub fn enable(&mut self, feature: &str) -> bool {
        if self.features.iter().any(|f| f == feature) {
            return false;
        }
        self.features.push(feature.to_string());
        self.features.sort();
        true
    }
}

impl std::fmt::Display for Package {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name, self.root.display())?;
        for feature in &self.features {
            write!(f, " +{}", feature)?;
        }
        Ok(())
    }
}

pub trait Resolver {
    fn resolve(&self, name: &str) -> Option<&Package>;
}

pub mod workspace {
    use super::*;

    pub fn index(packages: Vec<Package>) -> HashMap<String, Package> {
        let mut by_name = HashMap::new();
        for package in packages {
            by_name.insert(package.name.clone(), package);
        }
        by_name
    }
}
"""

GO = """// Package registry serves package metadata over HTTP.
package registry

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// Server answers metadata requests from an in-memory index.
type Server struct {
	mu       sync.RWMutex
	packages map[string]Package
}

// Package is one published package.
type Package struct {
	Name     string   `json:"name"`
	Versions []string `json:"versions"`
}

// NewServer returns a server with an empty index.
func NewServer() *Server {
	return &Server{packages: make(map[string]Package)}
}

// Publish adds or replaces a package.
func (s *Server) Publish(p Package) error {
	if p.Name == "" {
		return fmt.Errorf("a package needs a name")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.packages[p.Name] = p
	return nil
}

// ServeHTTP answers GET /<name> with the package's JSON.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	p, ok := s.packages[r.URL.Path[1:]]
	s.mu.RUnlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(p); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}
"""

JAVA = """package com.example.build;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Schedules build tasks in dependency order. */
public class TaskScheduler {
    private final Map<String, List<String>> dependencies;
    private final List<String> order = new ArrayList<>();

    public TaskScheduler(Map<String, List<String>> dependencies) {
        this.dependencies = dependencies;
    }

    /** Every task after the ones it depends on. */
    public List<String> schedule() {
        for (String task : dependencies.keySet()) {
            visit(task, new ArrayList<>());
        }
        return order;
    }

    private void visit(String task, List<String> stack) {
        if (order.contains(task)) {
            return;
        }
        if (stack.contains(task)) {
            throw new IllegalStateException("cycle through " + task + ": " + stack);
        }
        stack.add(task);
        for (String dep : dependencies.getOrDefault(task, List.of())) {
            visit(dep, stack);
        }
        stack.remove(stack.size() - 1);
        order.add(task);
    }

    public interface Listener {
        void onScheduled(String task, int position);
    }

    enum Phase { PLAN, RUN, REPORT }
}
"""

KOTLIN = """package com.example.mobile

import android.content.Context
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.map

/** Keeps the signed-in user's settings. */
class SettingsRepository(private val context: Context, private val store: DataStore) {
    val theme: Flow<String> = store.data.map { prefs -> prefs[THEME_KEY] ?: "system" }

    suspend fun setTheme(theme: String) {
        require(theme in listOf("light", "dark", "system")) { "unknown theme $theme" }
        store.edit { prefs ->
            prefs[THEME_KEY] = theme
            prefs[UPDATED_KEY] = System.currentTimeMillis().toString()
        }
    }

    fun describe(): String {
        val name = context.packageName
        return "settings of $name stored in ${store.fileName}"
    }

    companion object {
        const val THEME_KEY = "theme"
        const val UPDATED_KEY = "updated"
    }
}

object SettingsDefaults {
    fun themeFor(hour: Int): String = if (hour in 7..19) "light" else "dark"
}

fun migrate(old: Map<String, String>): Map<String, String> {
    val out = old.toMutableMap()
    out.remove("legacy_theme")?.let { out["theme"] = it }
    return out
}
"""

SWIFT = """import Foundation
import UIKit

/// Loads and caches images for the feed.
final class ImageLoader {
    private var cache: [URL: UIImage] = [:]
    private let session: URLSession

    init(session: URLSession = .shared) {
        self.session = session
    }

    func load(_ url: URL, completion: @escaping (UIImage?) -> Void) {
        if let cached = cache[url] {
            completion(cached)
            return
        }
        session.dataTask(with: url) { [weak self] data, _, _ in
            let image = data.flatMap(UIImage.init(data:))
            if let image = image {
                self?.cache[url] = image
            }
            DispatchQueue.main.async { completion(image) }
        }.resume()
    }

    func clear() {
        cache.removeAll()
    }
}

struct FeedItem: Codable {
    let id: String
    let title: String
    let imageURL: URL?
}

extension FeedItem {
    var isIllustrated: Bool {
        return imageURL != nil
    }
}

protocol FeedSource {
    func items() async throws -> [FeedItem]
}
"""

C = """#include <stdio.h>
#include <stdlib.h>
#include "buffer.h"

/* A growable byte buffer. */
struct buffer {
    char *data;
    size_t len;
    size_t cap;
};

static int buffer_grow(struct buffer *b, size_t need) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (data == NULL) {
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

int buffer_append(struct buffer *b, const char *bytes, size_t n) {
    if (b->len + n > b->cap && buffer_grow(b, b->len + n) != 0) {
        fprintf(stderr, "out of memory appending %zu bytes\\n", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        b->data[b->len + i] = bytes[i];
    }
    b->len += n;
    return 0;
}

void buffer_free(struct buffer *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
"""

CPP = """#include <string>
#include <vector>
#include <napi.h>

namespace native {

/// Wraps a list of strings for JavaScript.
class StringList : public Napi::ObjectWrap<StringList> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function ctor = DefineClass(env, "StringList", {
        InstanceMethod("push", &StringList::Push),
        InstanceMethod("size", &StringList::Size),
    });
    exports.Set("StringList", ctor);
    return exports;
  }

  explicit StringList(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StringList>(info) {}

 private:
  Napi::Value Push(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(info.Env(), "push expects a string").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    items_.push_back(info[0].As<Napi::String>().Utf8Value());
    return Napi::Number::New(info.Env(), static_cast<double>(items_.size()));
  }

  Napi::Value Size(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(items_.size()));
  }

  std::vector<std::string> items_;
};

}  // namespace native

int Count(const std::vector<std::string>& items) {
  return static_cast<int>(items.size());
}
"""

CSHARP = """using System;
using System.Collections.Generic;
using System.Linq;

namespace Example.Build
{
    /// <summary>Counts warnings per project.</summary>
    public class WarningReport
    {
        private readonly Dictionary<string, int> _counts = new();

        public void Add(string project, int warnings)
        {
            if (warnings < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(warnings), "warnings cannot be negative");
            }
            _counts[project] = _counts.TryGetValue(project, out var n) ? n + warnings : warnings;
        }

        public IEnumerable<string> Worst(int top)
        {
            return _counts.OrderByDescending(kv => kv.Value).Take(top).Select(kv => $"{kv.Key}: {kv.Value}");
        }

        public int Total => _counts.Values.Sum();
    }

    public interface IReportSink
    {
        void Write(WarningReport report);
    }

    public enum Severity
    {
        Info,
        Warning,
        Error,
    }
}
"""

BASH = """#!/usr/bin/env bash
# Build every package and publish the changed ones.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() {
  printf '[%s] %s\\n' "$(date +%H:%M:%S)" "$*" >&2
}

build_all() {
  local failed=0
  for dir in "$ROOT"/packages/*/; do
    log "building $dir"
    if ! (cd "$dir" && npm run build --if-present); then
      log "build failed in $dir"
      failed=$((failed + 1))
    fi
  done
  return "$failed"
}

publish_changed() {
  git diff --name-only "origin/main...HEAD" -- packages | cut -d/ -f2 | sort -u | while read -r name; do
    log "publishing $name"
    (cd "$ROOT/packages/$name" && npm publish --access public)
  done
}

case "${1:-all}" in
  build) build_all ;;
  publish) publish_changed ;;
  all) build_all && publish_changed ;;
  *) log "usage: $0 [build|publish|all]"; exit 2 ;;
esac
"""

JAVASCRIPT = """'use strict';

const path = require('path');
const { spawnSync } = require('child_process');

/** Runs a package script in every project folder. */
class ScriptRunner {
  constructor(root, options = {}) {
    this.root = root;
    this.parallel = options.parallel || 1;
  }

  run(projects, script) {
    const failures = [];
    for (const project of projects) {
      const cwd = path.join(this.root, project);
      const result = spawnSync('npm', ['run', script], { cwd, stdio: 'inherit' });
      if (result.status !== 0) {
        failures.push(`${project} exited with ${result.status}`);
      }
    }
    return failures;
  }
}

const handlers = {
  build(runner, projects) {
    return runner.run(projects, 'build');
  },
  test: (runner, projects) => runner.run(projects, 'test'),
};

function main(argv) {
  const [command, ...projects] = argv;
  const handler = handlers[command];
  if (!handler) {
    console.error(`unknown command ${command}`);
    return 2;
  }
  const failures = handler(new ScriptRunner(process.cwd()), projects);
  failures.forEach((f) => console.error(f));
  return failures.length ? 1 : 0;
}

module.exports = { ScriptRunner, main };
"""

SOURCES = {
    "python": ("tools/workspace.py", PYTHON),
    "rust": ("crates/build/src/package.rs", RUST),
    "go": ("services/registry/server.go", GO),
    "java": ("android/src/TaskScheduler.java", JAVA),
    "kotlin": ("android/app/SettingsRepository.kt", KOTLIN),
    "swift": ("ios/Feed/ImageLoader.swift", SWIFT),
    "c": ("native/buffer.c", C),
    "cpp": ("native/string_list.cc", CPP),
    "csharp": ("tools/WarningReport.cs", CSHARP),
    "bash": ("scripts/release.sh", BASH),
    "javascript": ("scripts/run-scripts.js", JAVASCRIPT),
}
