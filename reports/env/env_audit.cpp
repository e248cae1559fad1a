#include "reports/env/env_audit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "common/short_list.h"
#include "common/units.h"
#include "reports/env/nccl_log.h"
#include "reports/core/references.h"

namespace collbench::report {

namespace {

using Ranks = std::vector<const RankEnv*>;


// "all 16 processes", or "the one process".
std::string processes(std::size_t n) { return n == 1 ? "the one process" : fmt::format("all {} processes", n); }

// Checks of settings the job makes (versions, variables) and passes are about the world; a limit or
// device a node lacks is about those nodes.
Finding make(std::string code, Tag tag, Priority p, std::string message, std::string reference = "",
             Subject subject = {}) {
  return {std::move(code), tag, p, std::move(message), std::move(reference), std::move(subject)};
}

Finding pass(std::string code, std::string message) {
  return make(std::move(code), Tag::Pass, Priority::None, std::move(message));
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::vector<int> rank_numbers(const Ranks& rs) {
  std::vector<int> out;
  for (const auto* r : rs) out.push_back(r->rank);
  return out;
}

// Hosts in order of first appearance.
std::vector<std::string> hosts_of(const Ranks& rs) {
  std::vector<std::string> out;
  for (const auto* r : rs)
    if (std::find(out.begin(), out.end(), r->host) == out.end()) out.push_back(r->host);
  return out;
}

Subject on_nodes(const Ranks& rs) { return Subject::nodes(hosts_of(rs), rank_numbers(rs)); }

// "host a (ranks 0-7)", "hosts a, b (ranks 0-15)", "5 hosts: a, b, c, … (ranks 0-39)".
std::string where(const Ranks& rs) {
  const auto hosts = hosts_of(rs);
  const std::string ranks = describe_ranks(rank_numbers(rs));
  if (hosts.size() == 1) return fmt::format("host {} ({})", hosts[0].empty() ? "?" : hosts[0], ranks);
  if (hosts.size() <= 3) return fmt::format("hosts {} ({})", fmt::join(hosts, ", "), ranks);
  return fmt::format("{} hosts: {}, {}, {}, \u2026 ({})", hosts.size(), hosts[0], hosts[1], hosts[2], ranks);
}

// Ranks grouped by a value, groups in order of their first rank.
template <typename Key>
std::vector<std::pair<Key, Ranks>> group_by(const Ranks& rs, const std::function<Key(const RankEnv&)>& key) {
  std::vector<std::pair<Key, Ranks>> out;
  for (const auto* r : rs) {
    Key k = key(*r);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == k; });
    if (it == out.end()) it = out.insert(out.end(), {std::move(k), {}});
    it->second.push_back(r);
  }
  return out;
}

std::string version_name(const std::string& key) {
  static const std::map<std::string, std::string> names = {{"nccl", "NCCL"},
                                                           {"cuda_runtime", "CUDA runtime"},
                                                           {"cuda_driver", "CUDA driver"},
                                                           {"mpi", "MPI"},
                                                           {"libfabric", "libfabric"},
                                                           {"efa_installer", "EFA installer"}};
  const auto it = names.find(key);
  return it == names.end() ? key : it->second;
}

std::vector<std::string> version_keys(const Ranks& rs) {
  std::vector<std::string> keys = {"nccl", "cuda_runtime", "cuda_driver", "mpi", "libfabric"};
  for (const auto* r : rs)
    for (const auto& [k, v] : r->versions)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

// Groups of ranks by one version (ranks without it left out).
std::vector<std::pair<std::string, Ranks>> version_groups(const Ranks& rs, const std::string& key) {
  Ranks with;
  for (const auto* r : rs)
    if (r->versions.count(key)) with.push_back(r);
  return group_by<std::string>(with, [&](const RankEnv& r) { return r.versions.at(key); });
}

void version_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  std::vector<std::string> info;
  std::vector<std::string> others_differ;
  bool others_checked = false;
  for (const auto& key : version_keys(rs)) {
    const auto groups = version_groups(rs, key);
    if (groups.empty()) continue;
    std::vector<std::string> values;
    for (const auto& g : groups) values.push_back(g.first);
    info.push_back(fmt::format("{} {}", version_name(key), fmt::join(values, " | ")));
    if (key == "nccl") {
      if (groups.size() > 1) {
        std::vector<std::string> parts;
        for (const auto& [v, ranks] : groups) parts.push_back(fmt::format("{} on {}", v, where(ranks)));
        out.push_back(make("NCCL_VERSION_MISMATCH", Tag::Fail, Priority::P0,
                           fmt::format("NCCL {}; expected one NCCL build on every rank (mixed images or installs)",
                                       fmt::join(parts, "; ")),
                           ref::kVersionMismatch));
      } else if (rs.size() > 1 && ctx.backend == "nccl") {  // the mpi backend never loads NCCL: nothing to pass
        out.push_back(pass("NCCL_VERSION_CONSISTENT",
                           fmt::format("NCCL {} on {}", groups[0].first, processes(groups[0].second.size()))));
      }
      continue;
    }
    others_checked = true;
    if (groups.size() > 1) {
      std::vector<std::string> parts;
      for (const auto& [v, ranks] : groups) parts.push_back(fmt::format("{} on {}", v, where(ranks)));
      others_differ.push_back(fmt::format("{} {}", version_name(key), fmt::join(parts, ", ")));
    }
  }
  std::string plugin;
  for (const auto* r : rs)
    if (r->nccl_log && !r->nccl_log->ofi_plugin_version.empty()) {
      plugin = r->nccl_log->ofi_plugin_version;
      break;
    }
  if (!plugin.empty()) info.push_back("aws-ofi-nccl " + plugin);
  out.insert(out.begin(), make("VERSION_INFO", Tag::Info, Priority::None,
                               info.empty() ? std::string("no library versions reported")
                                            : fmt::format("versions: {}", fmt::join(info, ", "))));
  if (!others_differ.empty())
    out.push_back(
        make("VERSION_MISMATCH", Tag::Warn, Priority::P1,
             fmt::format("{}; expected the same software stack on every node", fmt::join(others_differ, "; ")),
             ref::kVersionMismatch));
  else if (others_checked && rs.size() > 1)
    out.push_back(
        pass("VERSIONS_CONSISTENT", fmt::format("CUDA, MPI and libfabric versions agree on {}", processes(rs.size()))));
}

bool compared_env_key(const std::string& k) {
  // Logging settings change no behaviour, and NCCL_DEBUG_FILE legitimately differs per rank (people
  // put the rank in it); NCCL_DEBUG=INFO has its own finding.
  if (k == "NCCL_DEBUG" || k == "NCCL_DEBUG_SUBSYS" || k == "NCCL_DEBUG_FILE") return false;
  return k.rfind("NCCL_", 0) == 0 || k.rfind("FI_", 0) == 0;
}

void env_checks(const Ranks& rs, std::vector<Finding>& out) {
  std::vector<std::string> keys;
  for (const auto* r : rs)
    for (const auto& [k, v] : r->env)
      if (compared_env_key(k) && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());

  std::vector<std::string> differing;
  for (const auto& key : keys) {
    const auto groups = group_by<std::optional<std::string>>(rs, [&](const RankEnv& r) -> std::optional<std::string> {
      const auto it = r.env.find(key);
      return it == r.env.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
    if (groups.size() < 2) continue;
    std::vector<std::string> parts;
    for (const auto& [value, ranks] : groups)
      parts.push_back(value ? fmt::format("{}={} on {}", key, *value, where(ranks))
                            : fmt::format("unset on {}", where(ranks)));
    differing.push_back(fmt::format("{}", fmt::join(parts, ", ")));
  }
  constexpr std::size_t kSeparate = 3, kListed = 6;
  const std::string expected =
      "expected the same NCCL_*/FI_* settings on every rank (export them to all ranks, e.g. mpirun -x)";
  if (differing.size() <= kSeparate) {
    for (const auto& d : differing)
      out.push_back(make("ENV_MISMATCH", Tag::Warn, Priority::P1, fmt::format("{}; {}", d, expected), ref::kEnvVars));
  } else {
    out.push_back(make("ENV_MISMATCH", Tag::Warn, Priority::P1,
                       fmt::format("{} variables differ across ranks: {}; {}", differing.size(),
                                   short_list(differing, kListed, "; "), expected),
                       ref::kEnvVars));
  }
  if (differing.empty() && rs.size() > 1)
    out.push_back(pass("ENV_CONSISTENT", fmt::format("NCCL_*/FI_* environment identical on {} ({} set)",
                                                     processes(rs.size()), keys.size())));
}

void memlock_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  Ranks low;
  for (const auto* r : rs)
    if (r->memlock_kb && *r->memlock_kb < kMinMemlockKb) low.push_back(r);
  if (low.empty()) {
    const bool all_unlimited = std::all_of(rs.begin(), rs.end(), [](const RankEnv* r) { return !r->memlock_kb; });
    out.push_back(pass("MEMLOCK_OK", all_unlimited ? fmt::format("memlock unlimited on {}", processes(rs.size()))
                                                   : fmt::format("memlock at least {} KB or unlimited on {}",
                                                                 kMinMemlockKb, processes(rs.size()))));
    return;
  }
  std::vector<std::string> parts;
  for (const auto& [kb, ranks] : group_by<std::uint64_t>(low, [](const RankEnv& r) { return *r.memlock_kb; }))
    parts.push_back(fmt::format("{} KB on {}", kb, where(ranks)));
  // Without EFA nothing registers memory with a NIC, so a low limit is only worth a note.
  const bool efa = ctx.efa_expected;
  out.push_back(make("MEMLOCK_LOW", efa ? Tag::Fail : Tag::Info, efa ? Priority::P0 : Priority::None,
                     fmt::format("memlock limit {}; expected at least {} KB (8 GiB) or unlimited{}",
                                 fmt::join(parts, ", "), kMinMemlockKb,
                                 efa ? ": EFA registers buffers with the NIC and fails below it"
                                     : ": RDMA registration and pinned buffers fail below it"),
                     ref::kMemlock, on_nodes(low)));
}

void shm_checks(const Ranks& rs, std::vector<Finding>& out) {
  Ranks measured;
  for (const auto* r : rs)
    if (r->shm_bytes > 0 || !r->shm_type.empty()) measured.push_back(r);
  if (measured.empty()) return;
  auto describe = [](const Ranks& small) {
    std::vector<std::string> parts;
    bool k8s = false;
    for (const auto& [key, ranks] : group_by<std::pair<std::uint64_t, std::string>>(small, [](const RankEnv& r) {
           return std::pair{r.shm_bytes, r.shm_type};
         })) {
      parts.push_back(fmt::format("/dev/shm is {}{} on {}", size_text(key.first),
                                  key.second.empty() ? "" : fmt::format(" ({})", key.second), where(ranks)));
      k8s = k8s || key.first == kKubernetesShmBytes;
    }
    std::string text = fmt::format("{}", fmt::join(parts, "; "));
    if (k8s)
      text +=
          " \u2014 64 MiB is the container default that Kubernetes pods get unless /dev/shm is an emptyDir "
          "with medium: Memory";
    return text;
  };
  Ranks fail, warn;
  for (const auto* r : measured) {
    if (r->shm_bytes < kShmFailBytes)
      fail.push_back(r);
    else if (r->shm_bytes < kShmWarnBytes)
      warn.push_back(r);
  }
  if (!fail.empty())
    out.push_back(make("SHM_TOO_SMALL", Tag::Fail, Priority::P0,
                       fmt::format("{}; NCCL needs at least 1 GiB for its shared-memory transport (4 GiB recommended)",
                                   describe(fail)),
                       ref::kStaleShm, on_nodes(fail)));
  if (!warn.empty())
    out.push_back(
        make("SHM_TOO_SMALL", Tag::Warn, Priority::P1,
             fmt::format("{}; 4 GiB or more is recommended so that NCCL's segments never run out", describe(warn)),
             ref::kStaleShm, on_nodes(warn)));
  if (fail.empty() && warn.empty()) {
    std::uint64_t smallest = measured.front()->shm_bytes;
    for (const auto* r : measured) smallest = std::min(smallest, r->shm_bytes);
    out.push_back(pass("SHM_OK", fmt::format("/dev/shm at least {} on every host (smallest {})",
                                             size_text(kShmWarnBytes), size_text(smallest))));
  }
}

void stack_checks(const Ranks& rs, std::vector<Finding>& out) {
  Ranks low;
  for (const auto* r : rs)
    if (r->stack_kb && *r->stack_kb < kMinStackKb) low.push_back(r);
  if (low.empty()) {
    out.push_back(pass(
        "STACK_OK", fmt::format("stack limit at least {} KB or unlimited on {}", kMinStackKb, processes(rs.size()))));
    return;
  }
  std::vector<std::string> parts;
  for (const auto& [kb, ranks] : group_by<std::uint64_t>(low, [](const RankEnv& r) { return *r.stack_kb; }))
    parts.push_back(fmt::format("{} KB on {}", kb, where(ranks)));
  // No reference: the hyperpod-nccl pages have no section on the stack limit.
  out.push_back(make("STACK_LIMIT", Tag::Warn, Priority::P2,
                     fmt::format("stack limit {}; expected at least {} KB (ulimit -s): NCCL's and MPI's helper threads "
                                 "take their stack size from it",
                                 fmt::join(parts, ", "), kMinStackKb),
                     "", on_nodes(low)));
}

// Ranks grouped by host, hosts in order of first appearance.
std::vector<std::pair<std::string, Ranks>> per_host(const Ranks& rs) {
  return group_by<std::string>(rs, [](const RankEnv& r) { return r.host; });
}

void efa_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  if (!ctx.efa_expected) return;
  const bool from_profile = ctx.profile && ctx.profile->efa_devices > 0;
  const int expected = from_profile ? ctx.profile->efa_devices : 1;
  std::vector<std::string> parts;
  Ranks short_ranks;
  for (const auto& [host, ranks] : per_host(rs)) {
    int seen = 0;
    for (const auto* r : ranks) seen = std::max(seen, r->efa_devices);
    if (seen >= expected) continue;
    parts.push_back(fmt::format("host {} sees {} of {}", host, seen, expected));
    short_ranks.insert(short_ranks.end(), ranks.begin(), ranks.end());
  }
  const std::string type = ctx.instance_type.empty() ? std::string("this instance type") : ctx.instance_type;
  if (parts.empty()) {
    out.push_back(pass("EFA_DEVICES_OK", from_profile
                                             ? fmt::format("every host sees its {} EFA devices ({})", expected, type)
                                             : "every host sees at least one EFA device"));
    return;
  }
  out.push_back(make("EFA_DEVICES_MISSING", Tag::Fail, Priority::P0,
                     fmt::format("{} EFA devices ({}); {} (counted in /sys/class/infiniband, efa* names or the efa "
                                 "driver, after retries)",
                                 fmt::join(parts, ", "), describe_ranks(rank_numbers(short_ranks)),
                                 from_profile ? fmt::format("{} has {}", type, expected)
                                              : fmt::format("{} supports EFA, so expected at least one", type)),
                     ref::kEfaConfig, on_nodes(short_ranks)));
}

bool log_shows_plugin(const RankEnv& r) {
  if (!r.nccl_log) return false;
  const std::string n = upper(r.nccl_log->network);
  return !r.nccl_log->ofi_plugin_version.empty() || n == "AWS LIBFABRIC" || n == "LIBFABRIC" || n == "OFI";
}

void plugin_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  if (!ctx.efa_expected || ctx.backend != "nccl") return;
  Ranks missing;
  for (const auto* r : rs)
    if (r->ofi_plugin.empty() && !log_shows_plugin(*r)) missing.push_back(r);
  if (missing.empty()) {
    std::string path;
    for (const auto* r : rs)
      if (!r->ofi_plugin.empty()) path = r->ofi_plugin;
    out.push_back(pass("OFI_PLUGIN_FOUND",
                       path.empty() ? fmt::format("aws-ofi-nccl loaded on {} (NCCL log)", processes(rs.size()))
                                    : fmt::format("aws-ofi-nccl plugin on {} ({})", processes(rs.size()), path)));
    return;
  }
  out.push_back(
      make("OFI_PLUGIN_MISSING", Tag::Fail, Priority::P0,
           fmt::format("no aws-ofi-nccl library (libnccl-net-ofi.so, libnccl-net.so, libnccl-net-aws-ofi.so) in "
                       "NCCL_NET_PLUGIN, LD_LIBRARY_PATH, the linker's directories, /opt/amazon/ofi-nccl/lib or "
                       "/opt/aws-ofi-nccl/lib on {}; expected the plugin on an EFA instance, without it NCCL "
                       "cannot use EFA and falls back to TCP sockets",
                       where(missing)),
           ref::kEfaConfig, on_nodes(missing)));
}

bool narrowed_gpus(const RankEnv& r) {
  if (r.env.count("CUDA_VISIBLE_DEVICES")) return true;
  const auto it = r.env.find("NVIDIA_VISIBLE_DEVICES");
  if (it == r.env.end()) return false;
  const std::string v = upper(it->second);
  return !v.empty() && v != "ALL" && v != "VOID" && v != "NONE";
}

void gpu_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  if (ctx.backend != "nccl" || !ctx.profile || ctx.profile->gpus <= 0) return;
  const int expected = ctx.profile->gpus;
  std::vector<std::string> bad, narrowed;
  Ranks bad_ranks, narrowed_ranks;
  for (const auto& [host, ranks] : per_host(rs)) {
    int seen = 0;
    bool narrow = false;
    for (const auto* r : ranks) {
      seen = std::max(seen, r->gpus_visible);
      narrow = narrow || narrowed_gpus(*r);
    }
    if (seen == expected) continue;
    const bool explained = narrow && seen < expected;
    (explained ? narrowed : bad).push_back(fmt::format("host {} sees {} of {}", host, seen, expected));
    auto& list = explained ? narrowed_ranks : bad_ranks;
    list.insert(list.end(), ranks.begin(), ranks.end());
  }
  const std::string type = ctx.instance_type.empty() ? std::string("the instance type") : ctx.instance_type;
  if (!bad.empty())
    out.push_back(make("GPU_COUNT_MISMATCH", Tag::Fail, Priority::P0,
                       fmt::format("{} GPUs ({}); {} has {} \u2014 a GPU missing from the driver usually means an XID "
                                   "error, a GPU fallen off the bus or a failing node",
                                   fmt::join(bad, ", "), describe_ranks(rank_numbers(bad_ranks)), type, expected),
                       ref::kHardware, on_nodes(bad_ranks)));
  if (!narrowed.empty())
    out.push_back(
        make("GPU_COUNT_MISMATCH", Tag::Warn, Priority::P2,
             fmt::format("{} GPUs ({}), narrowed by CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES; {} has {}, "
                         "so the hardware count could not be checked",
                         fmt::join(narrowed, ", "), describe_ranks(rank_numbers(narrowed_ranks)), type, expected),
             ref::kHardware, on_nodes(narrowed_ranks)));
  if (bad.empty() && narrowed.empty())
    out.push_back(pass("GPU_COUNT_OK", fmt::format("every host sees {} GPUs ({} has {})", expected, type, expected)));
}

// Whatever the backend: a GPU the driver shows and CUDA cannot use is a broken node, and on
// --backend auto it is why the run measured host MPI instead of NCCL.
void gpu_error_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  std::map<std::string, Ranks> by_error;
  for (const auto* r : rs)
    if (!r->gpu_error.empty()) by_error[r->gpu_error].push_back(r);
  for (const auto& [error, ranks] : by_error)
    out.push_back(make("CUDA_ERROR", Tag::Fail, Priority::P0,
                       fmt::format("GPU device files present but CUDA sees no GPU on {}: {}{}", where(ranks), error,
                                   ctx.backend == "nccl" ? "" : "; this run measured host MPI, not NCCL"),
                       ref::kHardware, on_nodes(ranks)));
}

void debug_checks(const Ranks& rs, const AuditContext& ctx, std::vector<Finding>& out) {
  if (ctx.backend != "nccl") return;
  Ranks verbose;
  std::string level;
  for (const auto* r : rs) {
    const auto it = r->env.find("NCCL_DEBUG");
    if (it == r->env.end()) continue;
    const std::string v = upper(it->second);
    if (v != "INFO" && v != "TRACE") continue;
    verbose.push_back(r);
    if (level.empty()) level = v;
  }
  if (verbose.empty()) return;
  out.push_back(make("NCCL_DEBUG_ENABLED", Tag::Warn, Priority::P2,
                     fmt::format("NCCL_DEBUG={} is set on {}; its logging costs time and can lower the measured "
                                 "bandwidth \u2014 expected unset or WARN while benchmarking",
                                 level, where(verbose)),
                     ref::kDebugImpact));
}

void instance_checks(const AuditContext& ctx, std::vector<Finding>& out) {
  if (ctx.instance_type.empty())
    out.push_back(
        make("UNKNOWN_INSTANCE", Tag::Info, Priority::None,
             "instance type unknown (no EC2 type in /sys/devices/virtual/dmi/id/product_name): EFA device and "
             "GPU count checks skipped"));
  else if (!ctx.profile)
    out.push_back(make(
        "UNKNOWN_INSTANCE", Tag::Info, Priority::None,
        fmt::format("no hardware profile for {} (no thresholds/{}.json): GPU count not checked{}", ctx.instance_type,
                    ctx.instance_type, ctx.efa_expected ? ", EFA devices checked for at least one" : "")));
}

}  // namespace

std::vector<Finding> audit_environment(const std::vector<RankEnv>& ranks, const AuditContext& ctx) {
  std::vector<Finding> out;
  if (ranks.empty()) return out;
  Ranks rs;
  for (const auto& r : ranks) rs.push_back(&r);

  version_checks(rs, ctx, out);
  env_checks(rs, out);
  memlock_checks(rs, ctx, out);
  shm_checks(rs, out);
  stack_checks(rs, out);
  instance_checks(ctx, out);
  efa_checks(rs, ctx, out);
  plugin_checks(rs, ctx, out);
  gpu_checks(rs, ctx, out);
  gpu_error_checks(rs, ctx, out);
  debug_checks(rs, ctx, out);

  std::vector<std::pair<int, NcclLogFacts>> logs;
  for (const auto* r : rs)
    if (r->nccl_log) logs.emplace_back(r->rank, *r->nccl_log);
  const bool have_version_mismatch =
      std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.code == "NCCL_VERSION_MISMATCH"; });
  for (auto& f : nccl_log_findings(logs, ctx.efa_expected)) {
    if (have_version_mismatch && f.code == "NCCL_VERSION_MISMATCH") continue;
    // The logs know ranks only; the reports say where each rank ran.
    Ranks named;
    for (const auto* r : rs)
      if (std::find(f.subject.ranks.begin(), f.subject.ranks.end(), r->rank) != f.subject.ranks.end())
        named.push_back(r);
    if (f.subject.kind == SubjectKind::Rank) f.subject = Subject::ranks_on(f.subject.ranks, hosts_of(named));
    else if (f.subject.kind == SubjectKind::Node) f.subject = Subject::nodes(hosts_of(named), f.subject.ranks);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace collbench::report
