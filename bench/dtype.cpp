#include "bench/dtype.h"

#include <array>
#include <cctype>

namespace collbench {
namespace {

constexpr std::array<DTypeInfo, kDTypeCount> kDTypes{{
    {DType::Int8, "int8", 1, false},
    {DType::Uint8, "uint8", 1, false},
    {DType::Int32, "int32", 4, false},
    {DType::Uint32, "uint32", 4, false},
    {DType::Int64, "int64", 8, false},
    {DType::Uint64, "uint64", 8, false},
    {DType::Half, "half", 2, true},
    {DType::Float, "float", 4, true},
    {DType::Double, "double", 8, true},
    {DType::BFloat16, "bfloat16", 2, true},
}};

struct Alias {
  std::string_view text;
  DType type;
};
constexpr std::array<Alias, 11> kAliases{{
    {"char", DType::Int8},
    {"int", DType::Int32},
    {"fp16", DType::Half},
    {"float16", DType::Half},
    {"f16", DType::Half},
    {"fp32", DType::Float},
    {"float32", DType::Float},
    {"f32", DType::Float},
    {"fp64", DType::Double},
    {"float64", DType::Double},
    {"bf16", DType::BFloat16},
}};

constexpr std::array<std::string_view, kRedOpCount> kRedOps{"sum", "prod", "max", "min"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const DTypeInfo& dtype_info(DType t) { return kDTypes[static_cast<std::size_t>(t)]; }
std::span<const DTypeInfo> all_dtypes() { return kDTypes; }

std::optional<DType> parse_dtype(std::string_view text) {
  const std::string t = lower(text);
  for (const auto& d : kDTypes)
    if (d.name == t) return d.type;
  for (const auto& a : kAliases)
    if (a.text == t) return a.type;
  return std::nullopt;
}

std::string dtype_names() {
  std::string out;
  for (const auto& d : kDTypes) out += (out.empty() ? "" : ", ") + std::string(d.name);
  return out;
}

std::string_view redop_name(RedOp op) { return kRedOps[static_cast<std::size_t>(op)]; }

std::optional<RedOp> parse_redop(std::string_view text) {
  const std::string t = lower(text);
  for (std::size_t i = 0; i < kRedOps.size(); ++i)
    if (kRedOps[i] == t) return static_cast<RedOp>(i);
  return std::nullopt;
}

std::string redop_names() {
  std::string out;
  for (auto n : kRedOps) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

}  // namespace collbench
