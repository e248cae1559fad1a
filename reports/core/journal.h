// Results on disk as they are measured: each case (or hunt round) is appended to PATH.partial (JSON lines, flushed
// per case) so a run killed halfway keeps what it measured; finish() writes PATH atomically
// (PATH.tmp, then rename) and removes the partial file.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/core/result.h"

namespace collbench::report {

inline constexpr const char* kPartialSchema = "collbench.run.partial/1";

class Journal {
 public:
  // Throws std::runtime_error naming the file when it cannot be created.
  Journal(std::string path, const RunHeader& header);
  // Any other document's journal: `first` is its first line (schema and header).
  Journal(std::string path, const nlohmann::json& first);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  void append(const CaseResult& c);
  void append_line(const nlohmann::json& line) { write_line(line); }
  // `sync`: fsync before the rename. A stopped process skips it: it may have a second before SIGKILL,
  // and the rename alone already leaves the old file or the whole new one when a process dies.
  void finish(const nlohmann::json& document, bool sync = true);

  const std::string& path() const { return path_; }
  std::string partial_path() const { return path_ + ".partial"; }

 private:
  void write_line(const nlohmann::json& line);

  std::string path_;
  std::FILE* partial_ = nullptr;
};

// Writes `text` to `path` atomically: a reader sees the old file or the whole new one (after a
// power loss too, with `sync`).
void write_file_atomically(const std::string& path, const std::string& text, bool sync = true);

}  // namespace collbench::report
