// A job's NCCL Inspector logs read as one stream: every process's file at once, 512 lines from
// each in turn, the same collective joined across ranks by (communicator id, coll_sn)
// in a bounded window of open collectives. What is kept is per communicator and per rank, never
// per record, so memory does not grow with the length of the job.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collbench::report::inspector {

// One process: one file.
struct Process {
  std::string file;
  std::string host;
  std::uint64_t pid = 0;
};

// One (communicator, size class) series of joined collectives' bandwidth: the highest busbw any
// rank reported for each, which is the collective's own speed (the ranks that waited for a late
// one report less). Decimated to at most kMaxSamples, evenly over the job; each kept sample's dump
// timestamp beside it (the latest of its ranks'), for drawing it over time.
struct BusbwSeries {
  std::string coll;
  std::uint64_t bytes = 0;
  std::vector<float> busbw;
  std::vector<std::uint64_t> ts_us;  // one per busbw sample
  std::size_t stride = 1, skipped = 0;
  static constexpr std::size_t kMaxSamples = 2048;
  void add(float v, std::uint64_t ts_us = 0);
};

// How late each rank arrived at a communicator's joined collectives, over the job: per rank and
// bin, the sum of (others' median exec time - its exec time) / that median, which is the share of
// the collective the others spent waiting for it. The late rank shows as a row of 20-30%, a rank
// that waited as 0 or below; an operator reads the straggler off as the one bright row, and when it
// started as where the row turns bright. The bins run over coll_sn, not over time: dump timestamps
// are when the Inspector's thread wrote (every interval, or all at the end with the default
// interval of -1), so only coll_sn orders the collectives; each bin keeps the timestamps it spans
// for the axis. kBins bins of `width` collectives each; a collective past the last bin doubles the
// width (pairs of bins merged), so memory is n_ranks x kBins whatever the length of the job.
struct LatenessBins {
  static constexpr std::size_t kBins = 64;
  std::uint64_t first_sn = 0;  // bin b holds coll_sn [first_sn + b * width, first_sn + (b + 1) * width)
  std::uint64_t width = 1;
  std::vector<std::uint32_t> collectives;             // per bin: joined collectives in it
  std::vector<std::uint64_t> first_ts_us, last_ts_us;  // per bin: the dump timestamps it spans
  std::vector<float> late_share;                      // [rank * kBins + bin]: summed share
  void add(std::uint64_t sn, std::uint64_t ts_us, const std::vector<float>& exec_us, double median_us);
  std::size_t used() const;  // bins up to the last that holds a collective
  float mean(std::size_t rank, std::size_t bin) const;  // the bin's mean share; 0 for an empty bin

 private:
  void start(std::size_t ranks, std::uint64_t sn);
  void halve();  // pairs of bins merged into the first half, the width doubled
};

struct RankTally {
  int process = -1;              // index into Job::processes; -1: never seen
  std::uint64_t last_sn = 0;     // highest coll_sn this rank wrote
  std::uint64_t last_ts_us = 0;  // its dump timestamp
  std::uint64_t records = 0;
  std::uint64_t late = 0;        // joined collectives in which it was the late rank
  double waited_us = 0;          // what the others waited for it, summed over those
};

struct Comm {
  std::string id;
  int n_ranks = 0;
  int nnodes = 0;
  std::vector<RankTally> ranks;
  std::uint64_t joined = 0;       // collectives every rank reported
  std::uint64_t partial = 0;      // collectives some rank never reported (sampling, a hang, the end)
  std::uint64_t closed_upto = 0;  // highest coll_sn closed as partial by the window
  std::uint64_t late_records = 0; // records of collectives already closed as partial (left out)
  double others_exec_us = 0;      // over joined collectives: the others' median exec time, summed
  std::uint64_t first_ts_us = 0, last_ts_us = 0;
  std::uint64_t min_sn = 0, max_sn = 0;
  std::vector<BusbwSeries> series;
  LatenessBins lateness;  // communicators of 3 ranks or more
};

struct Job {
  std::vector<Process> processes;
  std::vector<Comm> comms;
  std::uint64_t records = 0, p2p_records = 0;
  std::uint64_t first_ts_us = 0, last_ts_us = 0;
  std::vector<std::string> truncated;  // files whose last line was cut short (still being written)
  std::vector<std::string> empty;      // files with nothing in them yet
  std::size_t peak_open = 0;           // most collectives open in the join window at once
  std::size_t peak_tracked = 0;        // most collectives the window's eviction order held at once
};

// A collective's ranks are late-rank evidence when the shortest exec time sits below the others'
// median by more than kLateSpread scaled MADs of the others and by more than kLateFloor of that
// median: every rank waits in a collective for the last one to arrive, so the last shows the
// shortest time, and a margin the others' own spread cannot explain is time they spent waiting.
inline constexpr double kLateSpread = 5.0;
inline constexpr double kLateFloor = 0.05;
// Most collectives open in the join window before the oldest is closed as partial.
inline constexpr std::size_t kMaxOpen = 1u << 16;

// Inspector output: a directory (its regular files) or a file whose first line is an Inspector
// record. Reads nothing more than the first line.
bool is_inspector_path(const std::string& path);

struct ReadOptions {
  std::size_t max_open = kMaxOpen;                  // the join window
  std::function<void(std::uint64_t)> progress = {};  // called now and then with the records read so far
};

// Reads the files (directories expanded to the files in them; a file named twice is read once) as
// one job. Throws InputError naming the file for: a file that is not Inspector output, a format
// version other than kFormatVersion, a complete line that cannot be read (file and line number),
// two files claiming the same rank of a communicator or disagreeing on its size, processes that
// share no communicator with the rest (logs of two jobs mixed). A last line without its newline is
// the file still being written: skipped and listed in `truncated`.
Job read_job(const std::vector<std::string>& paths, const ReadOptions& options = {});

}  // namespace collbench::report::inspector
