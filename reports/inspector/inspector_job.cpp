#include "reports/inspector/inspector_job.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>

#include "reports/core/json_input.h"
#include "reports/core/stats.h"
#include "reports/inspector/inspector_open_set.h"
#include "reports/inspector/inspector_record.h"

namespace collbench::report::inspector {
namespace fs = std::filesystem;

namespace {

// One file, read in large blocks, handed out a line at a time.
class LineSource {
 public:
  LineSource(std::string path, std::size_t buffer)
      : path_(std::move(path)), buf_(new char[buffer]), cap_(buffer) {}  // not zeroed: it is read into
  const std::string& path() const { return path_; }
  std::uint64_t line_no() const { return line_no_; }
  bool done() const { return done_; }
  bool truncated() const { return truncated_; }

  void open() {
    fp_.reset(std::fopen(path_.c_str(), "rb"));
    if (!fp_) {
      const int err = errno;
      throw InputError(fmt::format("'{}': cannot open it: {}{}", path_, std::strerror(err),
                                   err == EMFILE ? " (every process's file is open at once: raise `ulimit -n` above "
                                                   "the number of files)"
                                                 : ""));
    }
  }
  void close() { fp_.reset(); }

  // The next complete line; false at the end (a last line without a newline is not handed out).
  bool next(std::string_view& line) {
    for (;;) {
      char* const buf = buf_.get();
      const char* nl = static_cast<const char*>(std::memchr(buf + pos_, '\n', len_ - pos_));
      if (nl) {
        line = std::string_view(buf + pos_, static_cast<std::size_t>(nl - (buf + pos_)));
        pos_ = static_cast<std::size_t>(nl - buf) + 1;
        ++line_no_;
        return true;
      }
      if (eof_) {
        // Whatever is left has no newline: the writer was in the middle of it.
        truncated_ = std::any_of(buf + pos_, buf + len_, [](char c) { return c != ' ' && c != '\r' && c != '\t'; });
        done_ = true;
        close();
        return false;
      }
      fill();
    }
  }

 private:
  void fill() {
    if (pos_ > 0) {
      std::memmove(buf_.get(), buf_.get() + pos_, len_ - pos_);
      len_ -= pos_;
      pos_ = 0;
    }
    if (len_ == cap_) {  // a line longer than the buffer
      std::unique_ptr<char[]> bigger(new char[2 * cap_]);
      std::memcpy(bigger.get(), buf_.get(), len_);
      buf_ = std::move(bigger);
      cap_ *= 2;
    }
    const std::size_t got = std::fread(buf_.get() + len_, 1, cap_ - len_, fp_.get());
    len_ += got;
    if (got == 0) eof_ = true;
  }

  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, Closer> fp_;
  std::unique_ptr<char[]> buf_;  // grows for a longer line
  std::size_t cap_ = 0, pos_ = 0, len_ = 0;
  std::uint64_t line_no_ = 0;
  bool eof_ = false, done_ = false, truncated_ = false;
};

std::string first_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file()) in_dir.push_back(e.path().string());
      if (ec) throw InputError(fmt::format("'{}': cannot list it: {}", p, ec.message()));
      if (in_dir.empty())
        throw InputError(fmt::format("'{}': the directory holds no files; give the NCCL_INSPECTOR_DUMP_DIR of a job "
                                     "that ran with the Inspector on",
                                     p));
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p);
    }
  }
  std::set<std::string> seen;  // a directory and a file in it, or one path twice: read once
  std::erase_if(files, [&](const std::string& f) {
    std::error_code ec;
    const auto canon = fs::weakly_canonical(f, ec);
    return !seen.insert(ec ? f : canon.string()).second;
  });
  return files;
}

// Raises the open-file limit as far as allowed: every process's file stays open while the job is read.
void allow_open_files(std::size_t n) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < n + 64) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, static_cast<rlim_t>(n + 64));
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class Joiner {
 public:
  Joiner(Job& job, std::size_t max_open) : job_(job), max_open_(max_open) {}

  void add(const Record& r, int process, const LineSource& src) {
    const int ci = comm_index(r, src);
    Comm& c = job_.comms[static_cast<std::size_t>(ci)];
    RankTally& t = c.ranks[static_cast<std::size_t>(r.rank)];
    if (t.process != process) {
      if (t.process >= 0)
        throw InputError(fmt::format(
            "'{}': rank {} of communicator {} is in '{}' too: these are the logs of more than one job (or one job "
            "run twice into the same directory); give analyze one job's NCCL_INSPECTOR_DUMP_DIR",
            src.path(), r.rank, c.id, job_.processes[static_cast<std::size_t>(t.process)].file));
      t.process = process;
      links_.emplace_back(c.id, process);
    }
    ++t.records;
    t.last_sn = std::max(t.last_sn, r.sn);
    t.last_ts_us = std::max(t.last_ts_us, r.dump_ts_us);
    if (c.first_ts_us == 0 || r.dump_ts_us < c.first_ts_us) c.first_ts_us = r.dump_ts_us;
    c.last_ts_us = std::max(c.last_ts_us, r.dump_ts_us);
    if (c.min_sn == 0 || r.sn < c.min_sn) c.min_sn = r.sn;
    c.max_sn = std::max(c.max_sn, r.sn);

    const std::uint64_t key = (static_cast<std::uint64_t>(ci) << 44) | (r.sn & ((1ull << 44) - 1));
    if (r.sn <= c.closed_upto && !open_.contains(key)) {  // its collective was closed without this rank
      ++c.late_records;
      return;
    }
    auto [op, fresh] = open_.try_emplace(key);
    Open& o = *op;
    if (fresh) {
      o.exec_us.assign(static_cast<std::size_t>(c.n_ranks), -1.f);
      o.series = series_index(c, r);
      o.sn = r.sn;
      order_.push_back(key);
      job_.peak_open = std::max(job_.peak_open, open_.size());
      job_.peak_tracked = std::max(job_.peak_tracked, order_.size());
    }
    float& slot = o.exec_us[static_cast<std::size_t>(r.rank)];
    if (slot < 0) ++o.present;
    slot = static_cast<float>(r.exec_us);
    o.ts_us = std::max(o.ts_us, r.dump_ts_us);
    if (r.busbw_gbs == r.busbw_gbs) o.best_busbw = std::max(o.best_busbw, static_cast<float>(r.busbw_gbs));
    if (o.present == c.n_ranks) {
      close(c, o, true);
      open_.erase(key);
    }
    while (open_.size() > max_open_) evict_oldest();
    // Keys of collectives that closed when their last rank came in stay in order_ until here: drop
    // them now and then, so it holds about what is open, not the whole job.
    if (order_.size() > 2 * open_.size() + 4096)
      std::erase_if(order_, [&](std::uint64_t k) { return !open_.contains(k); });
  }

  void finish() {
    while (!order_.empty()) evict_oldest();
  }

  // Each (communicator, process) pair the first time it is seen: which processes share one.
  std::vector<std::pair<std::string, int>> links_;

 private:
  int comm_index(const Record& r, const LineSource& src) {
    auto it = comms_.find(r.comm_id);
    if (it == comms_.end()) {
      Comm c;
      c.id = std::string(r.comm_id);
      c.n_ranks = r.n_ranks;
      c.nnodes = r.nnodes;
      c.ranks.resize(static_cast<std::size_t>(r.n_ranks));
      job_.comms.push_back(std::move(c));
      it = comms_.emplace(std::string(r.comm_id), static_cast<int>(job_.comms.size() - 1)).first;
    }
    const Comm& c = job_.comms[static_cast<std::size_t>(it->second)];
    if (c.n_ranks != r.n_ranks)
      throw InputError(fmt::format("'{}' line {}: communicator {} has {} ranks here and {} in another file: these are "
                                   "the logs of more than one job; give analyze one job's NCCL_INSPECTOR_DUMP_DIR",
                                   src.path(), src.line_no(), c.id, r.n_ranks, c.n_ranks));
    return it->second;
  }

  static int series_index(Comm& c, const Record& r) {
    for (std::size_t i = 0; i < c.series.size(); ++i)
      if (c.series[i].bytes == r.bytes && c.series[i].coll == r.coll) return static_cast<int>(i);
    c.series.push_back({std::string(r.coll), r.bytes, {}, {}, 1, 0});
    return static_cast<int>(c.series.size() - 1);
  }

  void evict_oldest() {
    const std::uint64_t key = order_.front();
    order_.pop_front();
    Open* o = open_.find(key);
    if (!o) return;  // closed when its last rank came in
    close(job_.comms[static_cast<std::size_t>(key >> 44)], *o, false);
    open_.erase(key);
  }

  // A joined collective: who was last to arrive, by how much, and its speed.
  void close(Comm& c, Open& o, bool joined) {
    if (!joined) {
      ++c.partial;
      c.closed_upto = std::max(c.closed_upto, o.sn);
      return;
    }
    ++c.joined;
    c.series[static_cast<std::size_t>(o.series)].add(o.best_busbw, o.ts_us);
    if (c.n_ranks < 3) return;  // two ranks: no "others" to have a spread
    const auto& e = o.exec_us;
    std::size_t low = 0;
    for (std::size_t i = 1; i < e.size(); ++i)
      if (e[i] < e[low]) low = i;
    others_.clear();
    for (std::size_t i = 0; i < e.size(); ++i)
      if (i != low) others_.push_back(e[i]);
    const double med = median(others_);
    for (double& x : others_) x = std::abs(x - med);
    const double spread = 1.4826 * median(others_);
    c.others_exec_us += med;
    c.lateness.add(o.sn, o.ts_us, e, med);
    const double late_by = med - e[low];
    if (late_by > kLateSpread * spread && late_by > kLateFloor * med) {
      RankTally& t = c.ranks[low];
      ++t.late;
      t.waited_us += late_by;
    }
  }

  Job& job_;
  std::size_t max_open_;
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> comms_;
  OpenSet open_;
  std::deque<std::uint64_t> order_;
  std::vector<double> others_;
};

}  // namespace

bool is_inspector_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return true;
  const std::string line = first_line(path);
  Record r;
  std::string_view err;
  return parse_line(line, r, err) != LineKind::NotInspector || is_prometheus_line(line);
}

namespace {

// The processes that share no communicator, directly or through others, with the first one: a
// job's processes are all linked (its world communicator, or its data- and tensor-parallel groups).
void refuse_mixed_jobs(const Job& job, const std::vector<std::pair<std::string, int>>& links) {
  std::vector<std::size_t> parent(job.processes.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto root = [&](int process) {
    auto x = static_cast<std::size_t>(process);
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::unordered_map<std::string, int> first;
  for (const auto& [comm, process] : links) {
    auto [it, fresh] = first.try_emplace(comm, process);
    if (!fresh) parent[static_cast<std::size_t>(root(process))] = root(it->second);
  }
  int anchor = -1;
  for (const auto& [comm, process] : links) {
    if (anchor < 0) anchor = process;
    if (root(process) != root(anchor))
      throw InputError(fmt::format("'{}' shares no communicator with '{}' (nor through the other files): these are "
                                   "the logs of more than one job; give analyze one job's NCCL_INSPECTOR_DUMP_DIR",
                                   job.processes[static_cast<std::size_t>(process)].file,
                                   job.processes[static_cast<std::size_t>(anchor)].file));
  }
}

}  // namespace

Job read_job(const std::vector<std::string>& paths, const ReadOptions& options) {
  const auto& progress = options.progress;
  const std::vector<std::string> files = expand(paths);
  allow_open_files(files.size());
  Job job;
  std::vector<LineSource> sources;
  sources.reserve(files.size());
  // At most 32 MiB of read buffers in all, between 16 and 128 KiB a file.
  const std::size_t buffer = std::clamp<std::size_t>((32u << 20) / std::max<std::size_t>(files.size(), 1), 16u << 10,
                                                     128u << 10);
  for (const auto& f : files) {
    sources.emplace_back(f, buffer);
    sources.back().open();
    job.processes.push_back({f, "", 0});
  }
  Joiner joiner(job, options.max_open);
  constexpr int kTurnLines = 512;  // lines from one file before the next file's turn
  std::size_t live = sources.size();
  std::uint64_t next_progress = 1u << 22;
  Record r;
  std::string_view line, err;
  std::set<std::pair<std::string, int>> p2p_seen;
  while (live > 0) {
    live = 0;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      LineSource& src = sources[s];
      if (src.done()) continue;
      Process& proc = job.processes[s];
      for (int n = 0; n < kTurnLines; ++n) {
        if (!src.next(line)) break;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const LineKind kind = parse_line(line, r, err);
        if (kind == LineKind::NotInspector) {
          if (src.line_no() == 1 && is_prometheus_line(line))
            throw InputError(fmt::format("'{}': NCCL Inspector Prometheus textfile (NCCL_INSPECTOR_PROM_DUMP): it holds "
                                         "each GPU's averages per dump interval, without ranks or coll_sn, so no "
                                         "collective can be joined across ranks; collbench reads the Inspector's JSON "
                                         "mode: rerun the job with NCCL_INSPECTOR_PROM_DUMP unset",
                                         src.path()));
          if (src.line_no() == 1)
            throw InputError(fmt::format("'{}': not NCCL Inspector output (its first line is no object with header, "
                                         "metadata and coll_perf); give analyze the Inspector's dump directory or "
                                         "its <host>-pid<pid>.log files",
                                         src.path()));
          throw InputError(fmt::format("'{}' line {}: not an Inspector record (no header, metadata and coll_perf); "
                                       "the file is damaged or not one process's Inspector log",
                                       src.path(), src.line_no()));
        }
        if (kind == LineKind::Broken)
          throw InputError(fmt::format("'{}' line {}: {}; the file is damaged (a truncated last line is fine, "
                                       "a broken one in the middle is not)",
                                       src.path(), src.line_no(), err));
        if (r.version != kFormatVersion)
          throw InputError(fmt::format("'{}' line {}: Inspector output format '{}' is not one collbench reads (it reads "
                                       "'{}'); analyze logs of an Inspector that writes '{}', or a collbench that "
                                       "knows '{}'",
                                       src.path(), src.line_no(), r.version, kFormatVersion, kFormatVersion,
                                       r.version));
        if (proc.host.empty()) proc.host = std::string(r.hostname), proc.pid = r.pid;
        if (job.first_ts_us == 0 || r.dump_ts_us < job.first_ts_us) job.first_ts_us = r.dump_ts_us;
        job.last_ts_us = std::max(job.last_ts_us, r.dump_ts_us);
        ++job.records;
        if (r.p2p) {  // counted, and its communicator links its processes
          ++job.p2p_records;
          if (p2p_seen.insert({std::string(r.comm_id), static_cast<int>(s)}).second)
            joiner.links_.emplace_back(std::string(r.comm_id), static_cast<int>(s));
          continue;
        }
        joiner.add(r, static_cast<int>(s), src);
      }
      if (!src.done()) ++live;
      if (progress && job.records >= next_progress) {
        progress(job.records);
        next_progress += 1u << 22;
      }
    }
  }
  joiner.finish();
  refuse_mixed_jobs(job, joiner.links_);
  for (std::size_t s = 0; s < sources.size(); ++s) {
    if (sources[s].truncated()) job.truncated.push_back(sources[s].path());
    if (job.processes[s].host.empty() && !sources[s].truncated()) job.empty.push_back(sources[s].path());
  }
  return job;
}

}  // namespace collbench::report::inspector
