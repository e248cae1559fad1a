#include "reports/core/journal.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "reports/core/json_report.h"

namespace collbench::report {
namespace {

std::runtime_error file_error(const std::string& what, const std::string& path) {
  return std::runtime_error(fmt::format("cannot {} '{}': {}", what, path, std::strerror(errno)));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, bool sync) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) throw file_error("create", tmp);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 &&
                  (!sync || fsync(fileno(f)) == 0);
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto err = file_error("write", path);
    std::remove(tmp.c_str());
    throw err;
  }
}

namespace {

nlohmann::json run_first_line(const RunHeader& header) {
  nlohmann::json first = {{"schema", kPartialSchema}};
  first.update(to_json(header));
  return first;
}

}  // namespace

Journal::Journal(std::string path, const RunHeader& header) : Journal(std::move(path), run_first_line(header)) {}

Journal::Journal(std::string path, const nlohmann::json& first) : path_(std::move(path)) {
  // A folder would take PATH.partial inside it and fail only at the end, when PATH cannot be renamed.
  std::error_code ec;
  if (path_.empty() || path_.back() == '/' || std::filesystem::is_directory(path_, ec))
    throw std::runtime_error(fmt::format("'{}' is a folder, not a file name", path_));
  partial_ = std::fopen(partial_path().c_str(), "w");
  if (partial_ == nullptr) throw file_error("create", partial_path());
  write_line(first);
}

Journal::~Journal() {
  if (partial_ != nullptr) std::fclose(partial_);
}

void Journal::write_line(const nlohmann::json& line) {
  const std::string text = line.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), partial_) != text.size() || std::fflush(partial_) != 0)
    throw file_error("append to", partial_path());
}

void Journal::append(const CaseResult& c) { write_line({{"case", to_json(c)}}); }

void Journal::finish(const nlohmann::json& document, bool sync) {
  write_file_atomically(path_, document.dump(2) + "\n", sync);
  std::fclose(partial_);
  partial_ = nullptr;
  std::remove(partial_path().c_str());
}

}  // namespace collbench::report
