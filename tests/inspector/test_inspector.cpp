// The Inspector reader against NCCL's published examples, the simulated job's lines against the
// same, and each rule on simulated jobs: healthy ones get no FAIL or WARN, each planted fault is
// named, and nothing else.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <unordered_map>

#include "reports/core/json_input.h"
#include "reports/inspector/inspector_open_set.h"
#include "reports/inspector/inspector_record.h"
#include "reports/inspector/inspector_rules.h"
#include "tests/inspector/inspector_fixture.h"

namespace collbench::report::inspector {
namespace {

namespace fs = std::filesystem;
namespace sim = collbench::inspector_sim;

// NVIDIA/nccl at 5067397c, plugins/profiler/inspector/README.md lines 190-212 ("Output Example"),
// as published (pretty-printed).
constexpr const char* kReadmeExample = R"({
  "header": {
    "id": "0x7f8c496ae9f661",
    "rank": 2,
    "n_ranks": 8,
    "nnodes": 1
  },
  "metadata": {
    "inspector_output_format_version": "v4.0",
    "git_rev": "",
    "rec_mechanism": "profiler_plugin",
    "dump_timestamp_us": 1748030377748202,
    "hostname": "example-hostname",
    "pid": 1639453
  },
  "coll_perf": {
    "coll": "AllReduce",
    "coll_sn": 1407,
    "coll_msg_size_bytes": 17179869184,
    "coll_exec_time_us": 61974,
    "coll_algobw_gbs": 277.210914,
    "coll_busbw_gbs": 485.119099
  }
})";

// The same README's verbose example (lines 227-276), one line as the plugin writes it.
constexpr const char* kReadmeVerbose =
    R"({"header":{"id":"0xe62dedaa97644a","rank":4,"n_ranks":8,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"9019a1912-dirty","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1752867229276385,"hostname":"example-hostname","pid":438776},"coll_perf":{"coll":"ReduceScatter","coll_sn":1231,"coll_msg_size_bytes":2147483648,"coll_exec_time_us":41057,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":418.439467,"coll_busbw_gbs":366.134533,"event_trace_sn":{"coll_start_sn":1,"coll_stop_sn":2,"kernel_events":[{"channel_id":0,"kernel_start_sn":3,"kernel_stop_sn":48,"kernel_record_sn":47}]},"event_trace_ts":{"coll_start_ts":1752867229235059,"coll_stop_ts":1752867229235064,"kernel_events":[{"channel_id":0,"kernel_start_ts":1752867229235181,"kernel_stop_ts":1752867229275811,"kernel_record_ts":1752867229275811}]}}})";

TEST(InspectorRecord, ReadsTheReadmeExampleFieldByField) {
  for (const std::string& text : {std::string(kReadmeExample), nlohmann::json::parse(kReadmeExample).dump()}) {
    Record r;
    std::string_view err;
    ASSERT_EQ(parse_line(text, r, err), LineKind::Record) << err;
    EXPECT_EQ(r.comm_id, "0x7f8c496ae9f661");
    EXPECT_EQ(r.rank, 2);
    EXPECT_EQ(r.n_ranks, 8);
    EXPECT_EQ(r.nnodes, 1);
    EXPECT_EQ(r.version, "v4.0");
    EXPECT_EQ(r.dump_ts_us, 1748030377748202u);
    EXPECT_EQ(r.hostname, "example-hostname");
    EXPECT_EQ(r.pid, 1639453u);
    EXPECT_EQ(r.coll, "AllReduce");
    EXPECT_EQ(r.sn, 1407u);
    EXPECT_EQ(r.bytes, 17179869184u);
    EXPECT_EQ(r.exec_us, 61974u);
    EXPECT_DOUBLE_EQ(r.algbw_gbs, 277.210914);
    EXPECT_DOUBLE_EQ(r.busbw_gbs, 485.119099);
    EXPECT_FALSE(r.p2p);
  }
}

TEST(InspectorRecord, VerboseTraceKeysAreNotTheRecords) {
  Record r;
  std::string_view err;
  ASSERT_EQ(parse_line(kReadmeVerbose, r, err), LineKind::Record) << err;
  EXPECT_EQ(r.coll, "ReduceScatter");
  EXPECT_EQ(r.sn, 1231u);
  EXPECT_EQ(r.exec_us, 41057u);
  EXPECT_EQ(r.timing_source, "kernel_gpu");
  EXPECT_DOUBLE_EQ(r.busbw_gbs, 366.134533);
}

TEST(InspectorRecord, RefusesWhatIsNotARecord) {
  Record r;
  std::string_view err;
  EXPECT_EQ(parse_line("#  size  count  type", r, err), LineKind::NotInspector);
  EXPECT_EQ(parse_line(R"({"schema":"collbench.run/1","cases":[]})", r, err), LineKind::NotInspector);
  // Keys the Inspector uses, with other types, in other JSON: still not Inspector.
  EXPECT_EQ(parse_line(R"({"cases":[{"arrival":{"rank":null,"hostname":7,"id":1}}],"header":{}})", r, err),
            LineKind::NotInspector);
  std::string no_sn = nlohmann::json::parse(kReadmeExample).dump();
  no_sn.replace(no_sn.find("\"coll_sn\""), 9, "\"coll_xx\"");
  EXPECT_EQ(parse_line(no_sn, r, err), LineKind::Broken);
  EXPECT_EQ(err, "coll_perf.coll_sn is missing");
  std::string rank_text = nlohmann::json::parse(kReadmeExample).dump();
  rank_text.replace(rank_text.find("\"rank\":2"), 8, "\"rank\":\"2\"");
  EXPECT_EQ(parse_line(rank_text, r, err), LineKind::Broken);
  const std::string whole = nlohmann::json::parse(kReadmeExample).dump();
  EXPECT_EQ(parse_line(whole.substr(0, whole.size() - 3), r, err), LineKind::Broken);
  EXPECT_EQ(err, "the object is not closed");
  std::string huge = nlohmann::json::parse(kReadmeExample).dump();
  huge.replace(huge.find("\"n_ranks\":8"), 11, "\"n_ranks\":2000000000");
  EXPECT_EQ(parse_line(huge, r, err), LineKind::Broken);  // a damaged line, not a 2-billion-rank allocation
  std::string nan_bw = kReadmeVerbose;
  nan_bw.replace(nan_bw.find("418.439467"), 10, "\"nan\"");
  ASSERT_EQ(parse_line(nan_bw, r, err), LineKind::Record) << err;  // json.cc writes NaN so
  EXPECT_TRUE(r.algbw_gbs != r.algbw_gbs);
}

// The join window's set agrees with a map through growth and deletions that shift runs back,
// with keys that collide in the table (one communicator's consecutive coll_sn, many communicators).
TEST(InspectorOpenSet, AgreesWithAMap) {
  OpenSet set;
  std::unordered_map<std::uint64_t, std::uint64_t> ref;  // key -> sn stored in its Open
  std::mt19937_64 rng(3);
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t key = (rng() % 40) << 44 | (rng() % 3000);
    switch (rng() % 3) {
      case 0:
      case 1: {
        auto [o, fresh] = set.try_emplace(key);
        ASSERT_EQ(fresh, !ref.count(key));
        if (fresh) {
          EXPECT_EQ(o->present, 0);
          EXPECT_EQ(o->ts_us, 0u);
          o->sn = key, o->present = 1, o->ts_us = 1;
          ref[key] = key;
        } else {
          EXPECT_EQ(o->sn, ref[key]);
        }
        break;
      }
      default:
        set.erase(key);
        ref.erase(key);
    }
    ASSERT_EQ(set.size(), ref.size());
    if (step % 1000 == 0)
      for (const auto& [k, sn] : ref) {
        ASSERT_TRUE(set.contains(k));
        ASSERT_EQ(set.find(k)->sn, sn);
      }
  }
  for (std::uint64_t k = 0; k < 3000; ++k) EXPECT_EQ(set.contains(k), ref.count(k) > 0);
}

// Strings of every length up to a few words, with escaped quotes anywhere in them, end where JSON says.
TEST(InspectorRecord, StringsEndAtTheirClosingQuote) {
  const std::string base = nlohmann::json::parse(kReadmeExample).dump();
  for (int len = 0; len <= 40; ++len)
    for (int quote = -1; quote < len; ++quote) {
      std::string host(static_cast<std::size_t>(len), 'h');
      if (quote >= 0) host[static_cast<std::size_t>(quote)] = '"';
      const std::string text = nlohmann::json(host).dump();  // the quote escaped
      std::string line = base;
      line.replace(line.find("\"example-hostname\""), 18, text);
      Record r;
      std::string_view err;
      ASSERT_EQ(parse_line(line, r, err), LineKind::Record) << line << ": " << err;
      EXPECT_EQ(r.hostname, text.substr(1, text.size() - 2)) << line;
      EXPECT_EQ(r.pid, 1639453u) << line;
    }
}

// Bandwidths are read to the same double from_chars gives, the plugin's "%lf" and any other number.
TEST(InspectorRecord, BandwidthsReadAsFromCharsReadsThem) {
  std::vector<std::string> texts = {"0.000000", "7", "1e3", "-2.5", "12.", ".5", "1.2.3", "0012.500000",
                                    "123456789.123456", "9999999999.999999", "0.1", "x1.0", "1.0e-2"};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log10(-7.0, 9.0);
  for (int i = 0; i < 20000; ++i) {
    char b[64];
    std::snprintf(b, sizeof b, "%lf", std::pow(10.0, log10(rng)));
    texts.push_back(b);
  }
  const std::string base = nlohmann::json::parse(kReadmeExample).dump();
  for (const auto& t : texts) {
    std::string line = base;
    line.replace(line.find("485.119099"), 10, t);
    Record r;
    std::string_view err;
    double want = 0;
    const auto fc = std::from_chars(t.data(), t.data() + t.size(), want);
    if (fc.ec != std::errc() || fc.ptr != t.data() + t.size()) {
      EXPECT_EQ(parse_line(line, r, err), LineKind::Broken) << t;
      continue;
    }
    ASSERT_EQ(parse_line(line, r, err), LineKind::Record) << t << ": " << err;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(r.busbw_gbs), std::bit_cast<std::uint64_t>(want)) << t;
  }
}

// The simulated job's lines have the README example's sections, keys (in its order) and value
// types; coll_timing_source, which the basic example leaves out, as the verbose one has it.
TEST(InspectorSim, LinesMatchTheReadmeExample) {
  sim::Line l;
  l.comm_id = "0x7f8c496ae9f661", l.rank = 2, l.n_ranks = 8, l.nnodes = 1, l.dump_ts_us = 1748030377748202;
  l.hostname = "example-hostname", l.pid = 1639453, l.coll = "AllReduce", l.sn = 1407, l.bytes = 17179869184;
  l.exec_us = 61974, l.algbw_gbs = 277.210914, l.busbw_gbs = 485.119099;
  const std::string line = sim::format_line(l);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find(' '), std::string::npos);  // compact, as json.cc writes
  const auto ours = nlohmann::ordered_json::parse(line);
  const auto theirs = nlohmann::ordered_json::parse(kReadmeExample);
  const auto verbose = nlohmann::ordered_json::parse(kReadmeVerbose);
  ASSERT_EQ(ours.size(), theirs.size());
  auto t = theirs.begin();
  for (auto o = ours.begin(); o != ours.end(); ++o, ++t) {
    ASSERT_EQ(o.key(), t.key());
    std::vector<std::string> want;
    for (auto it = t.value().begin(); it != t.value().end(); ++it) {
      if (o.key() == "coll_perf" && it.key() == "coll_algobw_gbs") want.push_back("coll_timing_source");
      want.push_back(it.key());
    }
    std::vector<std::string> got;
    for (auto it = o.value().begin(); it != o.value().end(); ++it) got.push_back(it.key());
    EXPECT_EQ(got, want) << o.key();
    for (auto it = o.value().begin(); it != o.value().end(); ++it) {
      const auto& ref = t.value().contains(it.key()) ? t.value()[it.key()] : verbose[o.key()][it.key()];
      EXPECT_EQ(it.value().type(), ref.type()) << o.key() << "." << it.key();
      if (it.key() != "rec_mechanism" && it.key() != "coll_timing_source") {
        EXPECT_EQ(it.value(), ref) << o.key() << "." << it.key();  // same values in, same text out
      }
    }
  }
}

TEST_F(InspectorJob, JoinsEveryCollectiveOfACompleteJob) {
  const Job job = run(spec(4, 2));
  EXPECT_EQ(job.processes.size(), 8u);
  EXPECT_EQ(job.comms.size(), 1u + 2u + 4u);  // world, two data-parallel, four per host
  for (const auto& c : job.comms) {
    EXPECT_EQ(c.joined, 200u) << c.id;
    EXPECT_EQ(c.partial, 0u) << c.id;
  }
  EXPECT_EQ(job.records, 200u * (8 + 8 + 8));
  EXPECT_TRUE(job.truncated.empty());
}

TEST_F(InspectorJob, HealthyJobsGetNoFailOrWarn) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (auto [hosts, gpus] : {std::pair{4, 2}, std::pair{8, 8}}) {
      const auto fs = inspector_findings(run(spec(hosts, gpus, sim::Fault::None, seed), std::to_string(seed)));
      EXPECT_TRUE(problems(fs).empty()) << codes(fs);
      ASSERT_FALSE(fs.empty());
      EXPECT_EQ(fs.back().code, "INSPECTOR_HEALTHY") << codes(fs);
    }
}

TEST_F(InspectorJob, NamesTheLateRankAndNothingElse) {
  for (auto [hosts, gpus, rank] : {std::tuple{4, 2, 5}, std::tuple{8, 8, 37}}) {
    auto s = spec(hosts, gpus, sim::Fault::LateRank);
    s.fault_rank = rank;
    const auto p = problems(inspector_findings(run(s, std::to_string(rank))));
    ASSERT_EQ(p.size(), 1u) << codes(p);
    EXPECT_EQ(p[0].code, "LATE_RANK");
    EXPECT_EQ(p[0].subject.ranks, std::vector<int>{rank});
    EXPECT_EQ(p[0].subject.hosts, std::vector<std::string>{sim::host_name(rank / gpus)});
    EXPECT_NE(p[0].message.find("rests on"), std::string::npos);
  }
}

TEST_F(InspectorJob, NamesTheSlowNodeAndNothingElse) {
  for (auto [hosts, gpus, host] : {std::tuple{4, 2, 1}, std::tuple{8, 8, 6}}) {
    auto s = spec(hosts, gpus, sim::Fault::SlowNode);
    s.fault_host = host;
    const auto p = problems(inspector_findings(run(s, std::to_string(host))));
    ASSERT_EQ(p.size(), 1u) << codes(p);
    EXPECT_EQ(p[0].code, "STRAGGLER_NODE");
    EXPECT_EQ(p[0].tag, Tag::Fail);
    EXPECT_EQ(p[0].subject.hosts, std::vector<std::string>{sim::host_name(host)});
  }
}

TEST_F(InspectorJob, NamesTheHungRankWithItsLastCollective) {
  auto s = spec(8, 8, sim::Fault::Hang);
  s.fault_rank = 12;
  s.hang_after = 90;
  const auto p = problems(inspector_findings(run(s)));
  ASSERT_EQ(p.size(), 1u) << codes(p);
  EXPECT_EQ(p[0].code, "COLLECTIVES_STOPPED");
  EXPECT_EQ(p[0].subject.ranks, std::vector<int>{12});
  EXPECT_EQ(p[0].subject.hosts, std::vector<std::string>{"node-001"});
  EXPECT_NE(p[0].message.find("last coll_sn 90"), std::string::npos) << p[0].message;
}

TEST_F(InspectorJob, TooLittleDataIsInfoNotFail) {
  auto s = spec(4, 2, sim::Fault::LateRank);
  s.collectives = kMinJoined - 1;
  const auto fs = inspector_findings(run(s));
  EXPECT_TRUE(problems(fs).empty()) << codes(fs);
  EXPECT_NE(codes(fs).find("INSPECTOR_TOO_LITTLE"), std::string::npos) << codes(fs);
  EXPECT_EQ(codes(fs).find("INSPECTOR_HEALTHY"), std::string::npos) << codes(fs);
  EXPECT_NE(codes(fs).find("stopped processes not judged"), std::string::npos) << codes(fs);
}

TEST_F(InspectorJob, ATruncatedLastLineIsLeftOutAndSaid) {
  auto s = spec(4, 2);
  s.truncate_last = true;
  const Job job = run(s);
  ASSERT_EQ(job.truncated.size(), 1u);
  EXPECT_EQ(job.records, 200u * 24 - 1);
  EXPECT_EQ(inspector_findings(job).front().code, "INSPECTOR_STILL_WRITING");
}

// A window smaller than the job's spread of open collectives closes them as partial: the memory
// bound holds, and what it costs is said in the counts.
TEST_F(InspectorJob, WindowStaysBounded) {
  auto s = spec(8, 8);
  s.collectives = 1000;  // 17,000 collectives in all
  const Job job = run(s);
  EXPECT_LE(job.peak_open, kMaxOpen);
  EXPECT_LT(job.peak_open, 2000u);  // lockstep reading keeps a few turns' worth open, not the job
  EXPECT_LT(job.peak_tracked, 2 * job.peak_open + 4096 + 1);  // nor a list of every collective seen
  EXPECT_LT(job.peak_tracked, 17000u);
}

// The window's bound holds when it is smaller than the job needs: what does not fit closes as
// partial, and every collective is counted once.
TEST_F(InspectorJob, ASmallWindowClosesCollectivesAsPartial) {
  sim::write_job(spec(4, 2), (dir_ / "job").string());
  ReadOptions small;
  small.max_open = 4;
  const Job job = read_job({(dir_ / "job").string()}, small);
  std::uint64_t joined = 0, partial = 0;
  for (const auto& c : job.comms) joined += c.joined, partial += c.partial;
  EXPECT_LE(job.peak_open, 5u);
  EXPECT_GT(partial, 0u);
  EXPECT_EQ(joined + partial, 200u * 7);
}

void expect_refused(const std::vector<std::string>& paths, const std::string& names, const std::string& says) {
  try {
    read_job(paths);
    ADD_FAILURE() << "accepted " << names;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(names), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}

TEST_F(InspectorJob, BadInputIsRefusedNamingTheFile) {
  auto s = spec(2, 2);
  s.collectives = 5;
  sim::write_job(s, (dir_ / "a").string());
  sim::write_job(s, (dir_ / "b").string());
  expect_refused({(dir_ / "a").string(), (dir_ / "b").string()}, (dir_ / "b").string(), "more than one job");

  auto other = s;
  other.comm_id_base = 0x1234500000ull;
  sim::write_job(other, (dir_ / "other").string());
  expect_refused({(dir_ / "a").string(), (dir_ / "other").string()}, (dir_ / "other").string(),
                 "shares no communicator");
  EXPECT_EQ(read_job({(dir_ / "a").string(), (dir_ / "a" / "node-000-pid4000.log").string()}).processes.size(), 4u);

  std::ofstream((dir_ / "a" / "notes.txt").string()) << "#  size  count  type\n";
  expect_refused({(dir_ / "a").string()}, "notes.txt", "not NCCL Inspector output");
  fs::remove(dir_ / "a" / "notes.txt");

  s.version = "v5.0";
  sim::write_job(s, (dir_ / "v5").string());
  expect_refused({(dir_ / "v5").string()}, (dir_ / "v5").string(), "'v5.0' is not one collbench reads");

  const auto f = dir_ / "a" / "node-000-pid4000.log";
  std::string text;
  {
    std::ifstream in(f);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.insert(text.find('\n') + 1, "{\"header\":{\"id\":\"0x1\"},\"metadata\":{},\"coll_perf\":{}}\n");
  std::ofstream(f) << text;
  expect_refused({(dir_ / "a").string()}, "node-000-pid4000.log' line 2", "header.rank is missing");
}

// The Prometheus textfile mode (inspector_record.h) is recognised, and refused by name: it has no
// ranks or coll_sn to join. The lines are laid out as inspector_prom.cc writes them.
constexpr const char* kPromLine =
    R"(nccl_bus_bandwidth_gbs{version="v5.1",slurm_job_id="unknown",node="node-000",gpu="GPU0",comm_name="unknown",)"
    R"(n_nodes="2",nranks="16",collective="AllReduce",message_size="64-65MB",algo_proto="RING_SIMPLE"} 38.9127)";

TEST(InspectorRecord, RecognisesThePrometheusTextfile) {
  EXPECT_TRUE(is_prometheus_line(kPromLine));
  EXPECT_TRUE(is_prometheus_line("# TYPE nccl_bus_bandwidth_gbs gauge"));
  EXPECT_TRUE(is_prometheus_line(R"(nccl_collectives_total{version="v5.1",node="h",gpu="GPU0"} 12)"));
  EXPECT_FALSE(is_prometheus_line(nlohmann::json::parse(kReadmeExample).dump()));
  EXPECT_FALSE(is_prometheus_line("#  size  count  type"));
  EXPECT_FALSE(is_prometheus_line("nccl_bus_bandwidth_gbs_other{} 1"));
}

TEST_F(InspectorJob, APrometheusTextfileIsRefusedByName) {
  fs::create_directories(dir_ / "prom");
  const auto file = dir_ / "prom" / "nccl_inspector_metrics_GPU-1234.prom";
  std::ofstream(file.string()) << kPromLine << "\n";
  EXPECT_TRUE(is_inspector_path(file.string()));
  for (const auto& path : {file, dir_ / "prom"}) expect_refused({path.string()}, file.string(), "Prometheus textfile");
}

}  // namespace
}  // namespace collbench::report::inspector
