// The wire form of RankEnv: each rank's facts travel to rank 0 as JSON.
#include "reports/env/env_facts.h"

#include <nlohmann/json.hpp>

namespace collbench::report {

namespace {

nlohmann::json log_to_json(const NcclLogFacts& f) {
  return {{"nccl_version", f.nccl_version},
          {"network", f.network},
          {"ofi_plugin_version", f.ofi_plugin_version},
          {"ofi_provider", f.ofi_provider},
          {"libfabric_version", f.libfabric_version},
          {"ofi_no_provider", f.ofi_no_provider},
          {"ofi_getinfo_failed", f.ofi_getinfo_failed},
          {"reg_mr_failed", f.reg_mr_failed},
          {"shm_extend_failed", f.shm_extend_failed},
          {"system_error", f.system_error},
          {"cuda_error", f.cuda_error},
          {"warnings", f.warnings}};
}

NcclLogFacts log_from_json(const nlohmann::json& j) {
  NcclLogFacts f;
  f.nccl_version = j.value("nccl_version", "");
  f.network = j.value("network", "");
  f.ofi_plugin_version = j.value("ofi_plugin_version", "");
  f.ofi_provider = j.value("ofi_provider", "");
  f.libfabric_version = j.value("libfabric_version", "");
  f.ofi_no_provider = j.value("ofi_no_provider", false);
  f.ofi_getinfo_failed = j.value("ofi_getinfo_failed", false);
  f.reg_mr_failed = j.value("reg_mr_failed", false);
  f.shm_extend_failed = j.value("shm_extend_failed", false);
  f.system_error = j.value("system_error", false);
  f.cuda_error = j.value("cuda_error", false);
  f.warnings = j.value("warnings", std::vector<std::string>{});
  return f;
}

nlohmann::json limit_to_json(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

std::optional<std::uint64_t> limit_from_json(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<std::uint64_t>();
}

}  // namespace

nlohmann::json to_json(const RankEnv& e) {
  return {{"rank", e.rank},
          {"host", e.host},
          {"instance_type", e.instance_type},
          {"versions", e.versions},
          {"ofi_plugin", e.ofi_plugin},
          {"env", e.env},
          {"memlock_kb", limit_to_json(e.memlock_kb)},
          {"stack_kb", limit_to_json(e.stack_kb)},
          {"shm_bytes", e.shm_bytes},
          {"shm_type", e.shm_type},
          {"efa_devices", e.efa_devices},
          {"gpus_visible", e.gpus_visible},
          {"gpu_error", e.gpu_error},
          {"nccl_log", e.nccl_log ? log_to_json(*e.nccl_log) : nlohmann::json()}};
}

RankEnv rank_env_from_json(const nlohmann::json& j) {
  RankEnv e;
  e.rank = j.value("rank", 0);
  e.host = j.value("host", "");
  e.instance_type = j.value("instance_type", "");
  e.versions = j.value("versions", std::map<std::string, std::string>{});
  e.ofi_plugin = j.value("ofi_plugin", "");
  e.env = j.value("env", std::map<std::string, std::string>{});
  e.memlock_kb = limit_from_json(j, "memlock_kb");
  e.stack_kb = limit_from_json(j, "stack_kb");
  e.shm_bytes = j.value("shm_bytes", std::uint64_t{0});
  e.shm_type = j.value("shm_type", "");
  e.efa_devices = j.value("efa_devices", 0);
  e.gpus_visible = j.value("gpus_visible", 0);
  e.gpu_error = j.value("gpu_error", std::string());
  if (j.contains("nccl_log") && j.at("nccl_log").is_object()) e.nccl_log = log_from_json(j.at("nccl_log"));
  return e;
}

}  // namespace collbench::report
