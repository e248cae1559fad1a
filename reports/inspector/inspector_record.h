// One line of NCCL Inspector output (the profiler plugin in NVIDIA/nccl), read without building a
// JSON tree: the plugin writes one compact object per completed collective per communicator, and
// a job of a thousand ranks writes tens of millions of them.
//
// The format, as the plugin writes it (NVIDIA/nccl at 5067397c, plugins/profiler/inspector/):
//   inspector_json.cc:26-36   "header": id (comm hash string), comm_name, rank, n_ranks, nnodes
//   inspector_json.cc:58-72   "metadata": inspector_output_format_version "v4.0", git_rev,
//                             rec_mechanism, dump_timestamp_us, hostname, pid
//   inspector_json.cc:205-228 "coll_perf": coll, coll_sn, coll_msg_size_bytes, coll_exec_time_us,
//                             coll_timing_source, coll_algobw_gbs, coll_busbw_gbs (+ event_trace_*
//                             with NCCL_INSPECTOR_DUMP_VERBOSE=1)
//   inspector_json.cc:231-256 "p2p_perf" in place of coll_perf for send/recv (p2p_sn, p2p_peer, ...)
//   inspector_json.cc:307-320 header, metadata, coll_perf in one object, then a newline
//   inspector.cc:652          one file per process, "<dump dir>/<hostname>-pid<pid>.log"
//   json.cc:429-440           doubles as "%lf" (six decimals); NaN as the string "nan"
// The older layout (ext-profiler/inspector/ at e5d9a7ae: inspector.cc, same keys without
// comm_name and p2p_perf, also "v4.0") reads the same way.
#pragma once

#include <cstdint>
#include <string_view>

namespace collbench::report::inspector {

// The one format version this reader knows; any other is refused by name.
inline constexpr std::string_view kFormatVersion = "v4.0";
// More ranks than any job has: a communicator claiming more is a damaged line, not an allocation.
inline constexpr int kMaxRanks = 1 << 20;

struct Record {
  // header
  std::string_view comm_id;
  int rank = -1;
  int n_ranks = 0;
  int nnodes = 0;
  // metadata
  std::string_view version;
  std::uint64_t dump_ts_us = 0;
  std::string_view hostname;
  std::uint64_t pid = 0;
  // coll_perf (p2p records keep only the header and metadata)
  bool p2p = false;
  std::string_view coll;
  std::uint64_t sn = 0;
  std::uint64_t bytes = 0;
  std::uint64_t exec_us = 0;
  std::string_view timing_source;
  double algbw_gbs = 0;
  double busbw_gbs = 0;
};

enum class LineKind {
  Record,        // a coll_perf or p2p_perf object, every field it needs present
  NotInspector,  // no header/metadata/perf sections: some other file
  Broken,        // looks like Inspector output but a field is missing or unreadable (`error` says which)
};

// The Inspector's Prometheus textfile mode (NCCL_INSPECTOR_PROM_DUMP), which this reader recognises
// in order to refuse it by name: per GPU, "<dump dir>/nccl_inspector_metrics_<device uuid>.prom",
// one line per metric and (communicator name, collective, power-of-two size range,
// algorithm_protocol) bucket, averaged over a dump interval, e.g.
//   nccl_bus_bandwidth_gbs{version="v<N>.1",slurm_job_id="12",node="h1",gpu="GPU0",comm_name="c",
//   n_nodes="2",nranks="16",collective="AllReduce",message_size="1-2MB",algo_proto="RING_SIMPLE"} 84.1
// (NVIDIA/nccl at 12df1a11, plugins/profiler/inspector/inspector_prom.cc: inspectorPromGetFilename,
// inspectorPromGetLabelsColl, inspectorPromWriteCollBucket; the version label is "v<profiler
// interface>.<minor>" from inspectorPromGetVersion). It carries no rank and no coll_sn, so nothing
// in it joins one collective across ranks.
bool is_prometheus_line(std::string_view line);

// Reads one line (without its newline). Views in `out` point into `line`. `error` names the field
// for Broken ("coll_sn is missing", "rank is not a whole number").
LineKind parse_line(std::string_view line, Record& out, std::string_view& error);

}  // namespace collbench::report::inspector
