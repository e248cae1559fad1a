#include "reports/env/nccl_log.h"
#include "reports/core/references.h"
#include "reports/core/utf8.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace collbench::report {
namespace {

constexpr std::size_t kMaxWarnings = 32;
constexpr std::size_t kMaxQuote = 120;


std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The word after `key` in `line` (up to a space or one of `stops`), or "" when `key` is absent.
std::string word_after(std::string_view line, std::string_view key, std::string_view stops = "") {
  const auto p = line.find(key);
  if (p == std::string_view::npos) return "";
  std::string_view rest = line.substr(p + key.size());
  std::size_t n = 0;
  while (n < rest.size() && !std::isspace(static_cast<unsigned char>(rest[n])) &&
         stops.find(rest[n]) == std::string_view::npos)
    ++n;
  return std::string(rest.substr(0, n));
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// "[1,12]<stdout>:" -> 12; srun -l "12: " or " 0: " -> 12 / 0. Returns the rank and the rest.
std::optional<std::pair<int, std::string_view>> rank_label(std::string_view line) {
  if (line.size() > 4 && line[0] == '[') {
    const auto comma = line.find(',');
    const auto close = line.find(']');
    const auto colon = line.find(">:");
    if (comma != std::string_view::npos && close != std::string_view::npos && colon != std::string_view::npos &&
        comma < close && close < colon) {
      const std::string_view digits = line.substr(comma + 1, close - comma - 1);
      // At most 7 digits, as for srun's labels: a longer number is no rank (and past int).
      if (!digits.empty() && digits.size() <= 7 &&
          std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::pair{std::stoi(std::string(digits)), line.substr(colon + 2)};
    }
    return std::nullopt;
  }
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t start = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == start || i - start > 7 || i + 1 > line.size() || line[i] != ':') return std::nullopt;
  if (i + 1 < line.size() && line[i + 1] != ' ') return std::nullopt;
  return std::pair{std::stoi(std::string(line.substr(start, i - start))), line.substr(std::min(line.size(), i + 2))};
}

// The first warning that mentions `needle`, shortened, for the evidence line.
std::string quote_warning(const NcclLogFacts& f, std::string_view needle) {
  for (const auto& w : f.warnings)
    if (lower(w).find(needle) != std::string::npos) return w.size() > kMaxQuote ? std::string(utf8_prefix(w, kMaxQuote)) + "\u2026" : w;
  return "";
}

struct Group {
  std::vector<int> ranks;
  std::string quote;  // first quoted warning seen in the group
};

Finding fail(std::string code, std::string message, std::string reference, Subject subject = {}) {
  return {std::move(code), Tag::Fail, Priority::P0, std::move(message), std::move(reference), std::move(subject)};
}

// Limits, /dev/shm and the network stack are the node's; an error in one process is that rank's.
// A log knows no host: the caller fills it in.
enum class Blame { Node, Rank };

Subject of_ranks(Blame blame, std::vector<int> ranks) {
  return blame == Blame::Node ? Subject::nodes({}, std::move(ranks)) : Subject::ranks_on(std::move(ranks));
}

bool tcp_provider(const std::string& provider) {
  const std::string p = lower(provider);
  return p.rfind("tcp", 0) == 0 || p.rfind("sockets", 0) == 0;
}

bool ofi_network(const std::string& network) {
  const std::string n = lower(network);
  return n == "aws libfabric" || n == "libfabric" || n == "ofi";
}

// One finding for the ranks whose facts satisfy `hit`, quoting the first matching warning.
template <typename Hit>
std::optional<Finding> flag_finding(const std::vector<std::pair<int, NcclLogFacts>>& per_rank, Hit hit,
                                    std::string_view needle, std::string code, std::string_view what,
                                    std::string_view expected, std::string reference, Blame blame) {
  Group g;
  for (const auto& [rank, f] : per_rank) {
    if (!hit(f)) continue;
    g.ranks.push_back(rank);
    if (g.quote.empty()) g.quote = quote_warning(f, needle);
  }
  if (g.ranks.empty()) return std::nullopt;
  const std::string seen = g.quote.empty() ? std::string(what) : fmt::format("{} (\"{}\")", what, g.quote);
  return fail(std::move(code), fmt::format("{} on {}; {}", seen, describe_ranks(g.ranks), expected),
              std::move(reference), of_ranks(blame, g.ranks));
}

std::string transport_label(const NcclLogFacts& f) {
  std::vector<std::string> details;
  if (!f.ofi_plugin_version.empty()) details.push_back("aws-ofi-nccl " + f.ofi_plugin_version);
  if (!f.libfabric_version.empty()) details.push_back("libfabric " + f.libfabric_version);
  if (!f.ofi_provider.empty()) details.push_back("provider " + f.ofi_provider);
  std::string label = f.network.empty() ? std::string("no \"Using network\" line") : f.network;
  if (!details.empty()) label += fmt::format(" ({})", fmt::join(details, ", "));
  return label;
}

}  // namespace

NcclLogFacts parse_nccl_log(std::string_view raw) {
  // What is read from a line (a warning, a version) ends up in JSON documents.
  const std::string text = valid_utf8(raw);
  NcclLogFacts f;
  for_each_line(text, [&](std::string_view line) {
    if (f.nccl_version.empty()) {
      const std::string v = word_after(line, "NCCL version ");
      if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0]))) f.nccl_version = v;
    }
    if (f.network.empty()) {
      const auto p = line.find("Using network ");
      if (p != std::string_view::npos) f.network = std::string(trim(line.substr(p + 14)));
    }
    if (f.ofi_plugin_version.empty() && line.find("NET/OFI") != std::string_view::npos) {
      f.ofi_plugin_version = word_after(line, "Initializing aws-ofi-nccl ");
      if (f.ofi_plugin_version.empty()) f.ofi_plugin_version = word_after(line, "Using aws-ofi-nccl ");
    }
    if (f.libfabric_version.empty()) f.libfabric_version = word_after(line, "Using Libfabric version ");

    const std::string low = lower(line);
    if (f.ofi_provider.empty()) f.ofi_provider = word_after(low, "selected provider is ", ",(");
    auto has = [&](std::string_view s) { return low.find(s) != std::string::npos; };
    if (has("no eligible providers were found")) f.ofi_no_provider = true;
    if (has("fi_getinfo() call failed")) f.ofi_getinfo_failed = true;
    if ((has("ibv_reg_") && has("failed")) || has("unable to register memory")) f.reg_mr_failed = true;
    if (has("failed to extend /dev/shm")) f.shm_extend_failed = true;
    if (has("unhandled system error")) f.system_error = true;
    if (has("unhandled cuda error") || has("nccl warn cuda failure")) f.cuda_error = true;

    const auto w = line.find("NCCL WARN ");
    if (w != std::string_view::npos && f.warnings.size() < kMaxWarnings)
      f.warnings.emplace_back(trim(line.substr(w + 10)));
  });
  return f;
}

std::vector<std::pair<int, std::string>> split_log_by_rank(std::string_view text) {
  std::map<int, std::string> by_rank;
  for_each_line(text, [&](std::string_view line) {
    if (auto label = rank_label(line)) {
      std::string& out = by_rank[label->first];
      out.append(label->second);
      out.push_back('\n');
    }
  });
  return {by_rank.begin(), by_rank.end()};
}

std::vector<Finding> nccl_log_findings(const std::vector<std::pair<int, NcclLogFacts>>& per_rank, bool efa_expected) {
  std::vector<Finding> out;
  if (per_rank.empty()) return out;

  if (efa_expected) {
    std::vector<int> socket, tcp;
    std::string provider;
    for (const auto& [rank, f] : per_rank) {
      if (lower(f.network) == "socket") socket.push_back(rank);
      if (tcp_provider(f.ofi_provider)) {
        tcp.push_back(rank);
        if (provider.empty()) provider = f.ofi_provider;
      }
    }
    std::vector<std::string> parts;
    if (!socket.empty())
      parts.push_back(
          fmt::format("NCCL chose its own TCP transport (\"Using network Socket\") on {}", describe_ranks(socket)));
    if (!tcp.empty())
      parts.push_back(fmt::format("aws-ofi-nccl selected libfabric provider {} on {}", provider, describe_ranks(tcp)));
    std::vector<int> fallback = socket;
    fallback.insert(fallback.end(), tcp.begin(), tcp.end());
    if (!parts.empty())
      out.push_back(fail("EFA_TCP_FALLBACK",
                         fmt::format("{}; on an EFA instance traffic should go through aws-ofi-nccl with provider efa "
                                     "(\"Using network Libfabric\" or \"AWS Libfabric\")",
                                     fmt::join(parts, "; ")),
                         ref::kTcpFallback, of_ranks(Blame::Node, fallback)));

    if (auto f = flag_finding(
            per_rank,
            [](const NcclLogFacts& x) { return (x.ofi_no_provider || x.ofi_getinfo_failed) && x.ofi_provider.empty(); },
            "provider", "OFI_LOAD_FAIL",
            "aws-ofi-nccl found no usable libfabric provider (\"No eligible providers were found\" or \"fi_getinfo() "
            "call failed\")",
            "expected provider efa on an EFA instance; NCCL falls back to its own transports", ref::kEfaConfig,
            Blame::Node))
      out.push_back(std::move(*f));
  }

  if (auto f = flag_finding(
          per_rank, [](const NcclLogFacts& x) { return x.reg_mr_failed; }, "reg", "RDMA_REG_FAIL",
          "RDMA memory registration failed", "registration needs a memlock limit of at least 8388608 KB or unlimited",
          ref::kMemlock, Blame::Node))
    out.push_back(std::move(*f));
  if (auto f = flag_finding(
          per_rank, [](const NcclLogFacts& x) { return x.shm_extend_failed; }, "/dev/shm", "SHM_FULL",
          "NCCL could not extend its /dev/shm segment", "/dev/shm is too small or full (expected at least 1 GiB free)",
          ref::kStaleShm, Blame::Node))
    out.push_back(std::move(*f));
  if (auto f = flag_finding(
          per_rank, [](const NcclLogFacts& x) { return x.system_error; }, "system error", "SYSTEM_ERROR",
          "NCCL reported \"unhandled system error\"",
          "a system call or the network failed; the NCCL WARN lines before it name the call", ref::kErrorPatterns,
          Blame::Rank))
    out.push_back(std::move(*f));
  if (auto f = flag_finding(
          per_rank, [](const NcclLogFacts& x) { return x.cuda_error; }, "cuda", "CUDA_ERROR",
          "NCCL reported a CUDA error", "a CUDA call failed; the NCCL WARN line names it", ref::kErrorPatterns,
          Blame::Rank))
    out.push_back(std::move(*f));

  std::map<std::string, std::vector<int>> versions;
  for (const auto& [rank, f] : per_rank)
    if (!f.nccl_version.empty()) versions[f.nccl_version].push_back(rank);
  if (versions.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [v, ranks] : versions) parts.push_back(fmt::format("NCCL {} on {}", v, describe_ranks(ranks)));
    out.push_back(
        fail("NCCL_VERSION_MISMATCH",
             fmt::format("{} (from the NCCL logs); every rank must load the same NCCL build", fmt::join(parts, "; ")),
             ref::kVersionMismatch, Subject::world()));  // no side is the wrong one
  }

  // What NCCL chose, grouped, in order of the lowest rank of each group.
  std::vector<std::pair<std::string, std::vector<int>>> transports;
  for (const auto& [rank, f] : per_rank) {
    const std::string label = transport_label(f);
    auto it = std::find_if(transports.begin(), transports.end(), [&](const auto& t) { return t.first == label; });
    if (it == transports.end()) it = transports.insert(transports.end(), {label, {}});
    it->second.push_back(rank);
  }
  std::vector<std::string> parts;
  for (const auto& [label, ranks] : transports) parts.push_back(fmt::format("{} on {}", label, describe_ranks(ranks)));
  std::string note;
  if (efa_expected &&
      std::all_of(per_rank.begin(), per_rank.end(), [](const auto& r) { return ofi_network(r.second.network); }))
    note = " (the aws-ofi-nccl plugin carries traffic, as expected on EFA)";
  out.push_back({"NET_TRANSPORT", Tag::Info, Priority::None,
                 fmt::format("NCCL network: {}{}", fmt::join(parts, "; "), note), "", Subject::world()});
  return out;
}

std::string describe_ranks(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return "";
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    runs.push_back(j == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(runs, ","));
}

}  // namespace collbench::report
