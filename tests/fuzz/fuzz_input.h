// What every fuzz target shares: the input as text or as a file, and the one way to report a
// property that does not hold (abort, so libFuzzer keeps the input as a crash).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace collbench::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The readers that take a path get the input through one file per process, rewritten each run
// and removed at exit.
struct InputFile {
  std::string path;
  explicit InputFile(const char* name) {
    const char* dir = std::getenv("TMPDIR");
    path = std::string(dir && *dir ? dir : "/tmp") + "/collbench-fuzz-" + std::to_string(getpid()) + "-" + name;
  }
  ~InputFile() { std::remove(path.c_str()); }
};

inline const std::string& write_input_file(const std::uint8_t* data, std::size_t size, const char* name) {
  static const InputFile file(name);
  const std::string& path = file.path;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

[[noreturn]] inline void property_failed(const char* what) {
  std::fprintf(stderr, "property does not hold: %s\n", what);
  std::abort();
}

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) ::collbench::fuzz::property_failed(#cond); \
  } while (0)

}  // namespace collbench::fuzz
